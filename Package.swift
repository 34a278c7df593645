// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "FirePack",
    products: [
        .executable(name: "firepack", targets: ["firepack"]),
        .library(name: "FirePack", targets: ["FirePack"]),
        .library(name: "FirePackInterop", targets: ["FirePackInterop"]),
    ],
    dependencies: [
        // Only the command-line tool depends on a package; the libraries depend on nothing.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "FirePack"),
        .target(name: "FirePackInterop", dependencies: ["FirePack"]),
        .executableTarget(name: "firepack", dependencies: [
            "FirePack", "FirePackInterop", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "FirePackTests", dependencies: ["FirePack"]),
        .testTarget(name: "FirePackInteropTests", dependencies: ["FirePack", "FirePackInterop"]),
    ]
)
