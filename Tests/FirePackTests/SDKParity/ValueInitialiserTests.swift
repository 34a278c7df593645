import Foundation
import Testing
import FirePack

/// The SDK's value-type initialisers: no `try`, a trap on exactly what the SDK rejects, and a throwing twin for
/// untrusted input.
@Suite("SDK parity: value initialisers")
struct ValueInitialiserTests {
    @Test func sdkInitialisersNeedNoTry() {
        let timestamp = Timestamp(seconds: 1_412_262_083, nanoseconds: 45_000_000)
        #expect(timestamp.seconds == 1_412_262_083 && timestamp.nanoseconds == 45_000_000)
        let point = GeoPoint(latitude: 51.5, longitude: -0.12)
        #expect(point.latitude == 51.5 && point.longitude == -0.12)
        // The ends of the SDK's ranges are accepted.
        #expect(Timestamp(seconds: -62_135_596_800, nanoseconds: 0) == Timestamp.firestoreRange.lowerBound)
        #expect(Timestamp(seconds: 253_402_300_799, nanoseconds: 999_999_999) == Timestamp.firestoreRange.upperBound)
        #expect(GeoPoint(latitude: -90, longitude: 180).longitude == 180)
    }

    @Test func timestampWithoutArgumentsIsNow() {
        let before = Date()
        let now = Timestamp()
        let after = Date()
        #expect(now.dateValue() >= before.addingTimeInterval(-0.001) && now.dateValue() <= after.addingTimeInterval(0.001))
    }

    @Test func validatingInitialisersThrowWhatTheSDKRejects() throws {
        #expect(throws: FirePackError.self) { try Timestamp(validatingSeconds: 0, nanoseconds: 1_000_000_000) }
        #expect(throws: FirePackError.self) { try Timestamp(validatingSeconds: 0, nanoseconds: -1) }
        // The format holds every Int64 second, so the validating initialiser does too.
        #expect(try Timestamp(validatingSeconds: .min, nanoseconds: 0).seconds == .min)
        #expect(throws: FirePackError.self) { try GeoPoint(validatingLatitude: 90.0001, longitude: 0) }
        #expect(throws: FirePackError.self) { try GeoPoint(validatingLatitude: 0, longitude: .nan) }
        #expect(try GeoPoint(validatingLatitude: 90, longitude: -180) == GeoPoint(latitude: 90, longitude: -180))
    }

    @Test func outOfRangeNanosecondsTrap() async {
        await #expect(processExitsWith: .failure) { _ = Timestamp(seconds: 0, nanoseconds: 1_000_000_000) }
        await #expect(processExitsWith: .failure) { _ = Timestamp(seconds: 0, nanoseconds: -1) }
    }

    @Test func secondsOutsideFirestoresRangeTrap() async {
        await #expect(processExitsWith: .failure) { _ = Timestamp(seconds: -62_135_596_801, nanoseconds: 0) }
        await #expect(processExitsWith: .failure) { _ = Timestamp(seconds: 253_402_300_800, nanoseconds: 0) }
    }

    @Test func coordinatesOutOfRangeTrap() async {
        await #expect(processExitsWith: .failure) { _ = GeoPoint(latitude: 90.5, longitude: 0) }
        await #expect(processExitsWith: .failure) { _ = GeoPoint(latitude: 0, longitude: -180.5) }
        await #expect(processExitsWith: .failure) { _ = GeoPoint(latitude: .nan, longitude: 0) }
    }

    /// Bytes can still never trap: the readers use the validating initialisers.
    @Test func bytesOutsideTheSDKRangesStillRead() throws {
        // C9 + 8 bytes of seconds: 253402300800 (year 10000) is valid FirePack.
        var bytes: [UInt8] = [0xC9]
        withUnsafeBytes(of: Int64(253_402_300_800).littleEndian) { bytes.append(contentsOf: $0) }
        #expect(try Value(firePackBytes: bytes) == .timestamp(Timestamp(validatingSeconds: 253_402_300_800, nanoseconds: 0)))
    }
}
