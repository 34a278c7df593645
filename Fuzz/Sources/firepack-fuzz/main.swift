// The fuzzing driver: `firepack-fuzz COMMAND TARGET …`, built with `-sanitize=fuzzer,address` by scripts/fuzz.sh.
//
//   firepack-fuzz list                          the targets, one per line
//   firepack-fuzz seed TARGET DIR [FIXTURES]    write the target's seed inputs into DIR
//   firepack-fuzz run TARGET [LIBFUZZER-ARGS]   fuzz TARGET (libFuzzer's own flags and corpus folders follow)
//   firepack-fuzz replay TARGET FILE…           run files through TARGET once and print what each did
//
// SwiftPM renames an executable's `main`, so libFuzzer's own `main` is not the entry point: this file is, and it
// hands control to libFuzzer through `LLVMFuzzerRunDriver`.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import FirePackFuzzTargets

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The target libFuzzer's callback feeds; set once before the driver starts.
nonisolated(unsafe) var activeTarget: FuzzTarget?

/// Writes a line to standard error.
func printError(_ text: String) {
    var text = text
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

func usage() -> Never {
    printError("usage: firepack-fuzz list | seed TARGET DIR [FIXTURES] | run TARGET [libFuzzer args] | replay TARGET FILE…\n")
    exit(2)
}

func target(_ name: String) -> FuzzTarget {
    guard let target = FuzzTarget.named(name) else {
        printError("firepack-fuzz: no target \(name); targets: \(FuzzTarget.all.map(\.name).joined(separator: ", "))\n")
        exit(2)
    }
    return target
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { usage() }
switch arguments[1] {
case "list":
    for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
case "seed":
    guard arguments.count >= 4 else { usage() }
    let seeds = FuzzSeeds.seeds(for: target(arguments[2]), fixtures: arguments.count > 4 ? arguments[4] : nil)
    try FileManager.default.createDirectory(atPath: arguments[3], withIntermediateDirectories: true)
    for (index, seed) in seeds.enumerated() {
        guard FileManager.default.createFile(atPath: arguments[3] + "/seed-\(index)", contents: Data(seed)) else {
            printError("firepack-fuzz: cannot write \(arguments[3])/seed-\(index)\n")
            exit(1)
        }
    }
    print("\(arguments[2]): \(seeds.count) seeds in \(arguments[3])")
case "replay":
    guard arguments.count >= 3 else { usage() }
    let target = target(arguments[2])
    var violations = 0
    for path in arguments.dropFirst(3) {
        guard let data = FileManager.default.contents(atPath: path) else { print("\(path): unreadable"); violations += 1; continue }
        let outcome = target.run(Array(data))
        if outcome.isViolation { violations += 1 }
        print("\(path): \(outcome)")
    }
    exit(violations == 0 ? 0 : 1)
case "run":
    guard arguments.count >= 3 else { usage() }
    activeTarget = target(arguments[2])
    // libFuzzer sees the program name and the arguments after the target's name.
    var driverArguments = [arguments[0]] + arguments.dropFirst(3)
    var cArguments = driverArguments.map { strdup($0) } + [nil]
    var argc = Int32(driverArguments.count)
    let status = cArguments.withUnsafeMutableBufferPointer { buffer in
        var argv = buffer.baseAddress
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
            let outcome = activeTarget!.run(input)
            if outcome.isViolation {
                // A broken invariant is a finding: abort so that libFuzzer saves the input as a crash.
                printError("firepack-fuzz: \(outcome)\n")
                abort()
            }
            return 0
        }
    }
    driverArguments.removeAll()
    exit(status)
default:
    usage()
}
