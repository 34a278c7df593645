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
        // The guide's models, shared by the benchmarks and the profiling workload.
        .target(name: "GuideModels", dependencies: [.product(name: "FirePack", package: "FirePack")], path: "Sources/GuideModels"),
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
                "GuideModels",
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
                "GuideModels",
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
            dependencies: ["GuideModels", .product(name: "FirePack", package: "FirePack")],
            path: "Sources/ProfileCodable"
        ),
    ]
)
