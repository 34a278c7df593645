// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "FirePack",
    products: [
        .library(name: "FirePack", targets: ["FirePack"]),
    ],
    targets: [
        .target(name: "FirePack"),
        .testTarget(name: "FirePackTests", dependencies: ["FirePack"]),
    ]
)
