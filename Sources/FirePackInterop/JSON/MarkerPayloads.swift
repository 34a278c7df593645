#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirePack

/// The payloads of reversible JSON's single-key marker objects (`JSONMarker`), read back into Firestore types.
enum MarkerPayloads {
    static func decode(marker: String, payload: Value, at offset: Int) throws(FirePackError) -> Value {
        func fail(_ why: String) -> FirePackError {
            FirePackError(.invalidJSON, offset: offset, "\(marker) marker: \(why)", path: [.key(marker)])
        }
        switch (marker, payload) {
        case (JSONMarker.timestamp, .string(let text)):
            do { return .timestamp(try Timestamp(rfc3339: text)) } catch { throw fail(error.message) }
        case (JSONMarker.geoPoint, .array(let pair)) where pair.count == 2:
            guard let latitude = pair[0].numberAsDouble, let longitude = pair[1].numberAsDouble else {
                throw fail("expects [latitude, longitude]")
            }
            do { return .geoPoint(try GeoPoint(validatingLatitude: latitude, longitude: longitude)) } catch {
                throw fail(error.message)
            }
        case (JSONMarker.reference, .string(let path)):
            do { return .reference(try DocumentReference(path: path)) } catch { throw fail(error.message) }
        case (JSONMarker.bytes, .string(let base64)):
            guard let data = Data(base64Encoded: base64) else { throw fail("not base64") }
            return .bytes(data)
        case (JSONMarker.vector, .array(let elements)):
            var doubles: [Double] = []
            doubles.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                guard let double = element.numberAsDouble else {
                    if case .integer(let integer) = element {
                        throw fail("element \(index), \(integer), is an integer a double cannot hold exactly")
                    }
                    throw fail("expects an array of numbers")
                }
                doubles.append(double)
            }
            return .vector(VectorValue(doubles))
        case (JSONMarker.serverTimestamp, .boolean(true)):
            return .serverTimestamp
        case (JSONMarker.double, .string(let text)):
            guard let double = ReversibleMarker.nonFiniteDouble(from: text) else {
                throw fail("expects \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" and 16 hex digits")
            }
            return .double(double)
        case (JSONMarker.map, .map):
            return payload
        default:
            throw fail("unexpected payload \(payload)")
        }
    }
}
