// swift-tools-version: 6.2
// Coverage-guided fuzzing of every FirePack parser with libFuzzer and AddressSanitizer: `scripts/fuzz.sh`.
//
// The targets live in Sources/FirePackFuzzTargets; the root package compiles the same folder for the test that
// replays every input that ever crashed (Tests/FirePackFuzzRegressionTests), so the fuzzers and the regression test
// exercise exactly the same code.
import PackageDescription

let package = Package(
    name: "FirePackFuzz",
    dependencies: [.package(name: "FirePack", path: "..")],
    targets: [
        .target(name: "FirePackFuzzTargets", dependencies: [
            .product(name: "FirePack", package: "FirePack"),
            .product(name: "FirePackInterop", package: "FirePack"),
            .product(name: "FirePackStreams", package: "FirePack"),
        ]),
        .executableTarget(name: "firepack-fuzz", dependencies: ["FirePackFuzzTargets"]),
    ]
)
