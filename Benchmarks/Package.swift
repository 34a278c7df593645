// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "FirePackBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "FirePack", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "CoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "FirePack", package: "FirePack"),
                .product(name: "FirePackInterop", package: "FirePack"),
            ],
            path: "Benchmarks/CoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "CodableBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "FirePack", package: "FirePack"),
            ],
            path: "Benchmarks/CodableBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "InteropBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "FirePack", package: "FirePack"),
                .product(name: "FirePackInterop", package: "FirePack"),
            ],
            path: "Benchmarks/InteropBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "PathsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "FirePack", package: "FirePack"),
                .product(name: "FirePackInterop", package: "FirePack"),
            ],
            path: "Benchmarks/PathsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // Not a benchmark: a fixed workload to profile with valgrind --tool=callgrind.
        .executableTarget(
            name: "ProfileCodable",
            dependencies: [.product(name: "FirePack", package: "FirePack")],
            path: "Sources/ProfileCodable"
        ),
    ]
)
