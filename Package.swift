// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "FirePack",
    products: [
        .library(name: "FirePack", targets: ["FirePack"]),
        .library(name: "FirePackInterop", targets: ["FirePackInterop"]),
    ],
    targets: [
        .target(name: "FirePack"),
        .target(name: "FirePackInterop", dependencies: ["FirePack"]),
        .testTarget(name: "FirePackTests", dependencies: ["FirePack"]),
        .testTarget(name: "FirePackInteropTests", dependencies: ["FirePack", "FirePackInterop"]),
    ]
)
