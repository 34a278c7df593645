/// The converted keys of the maps generated coding is reading under `convertFromSnakeCase`, kept per decode call so
/// that `FirePackValueReader.Fields` can name them by an index and hold no reference itself.
///
/// Like `MapEntryCache`'s regions, the entries form a stack by depth: the maps in use are the ancestors of the value
/// being read, so opening a map drops every entry at its depth or deeper. An entry is used only while it still
/// belongs to its map (`keys(_:mapOffset:)`), so a `Fields` whose entry was dropped makes its keys again (and keeps
/// them, found by its map from then on).
struct ConvertedKeyStack {
    private var maps: [(mapOffset: Int, depth: Int, keys: [FirePackValueReader.ConvertedKey])] = []

    /// Keeps `keys` for the map at `mapOffset`, inside `depth` containers; returns their index.
    mutating func open(mapOffset: Int, depth: Int, keys: [FirePackValueReader.ConvertedKey]) -> Int {
        while let last = maps.last, last.depth >= depth { maps.removeLast() }
        maps.append((mapOffset, depth, keys))
        return maps.count - 1
    }

    /// The keys at `index`, or where they were kept again for the map at `mapOffset`; nil when they are gone.
    func keys(_ index: Int, mapOffset: Int) -> [FirePackValueReader.ConvertedKey]? {
        if index >= 0, index < maps.count, maps[index].mapOffset == mapOffset { return maps[index].keys }
        return maps.last { $0.mapOffset == mapOffset }?.keys
    }

    /// Forgets every map (for the next decode call), keeping the capacity.
    mutating func removeAll() {
        if !maps.isEmpty { maps.removeAll(keepingCapacity: true) }
    }
}
