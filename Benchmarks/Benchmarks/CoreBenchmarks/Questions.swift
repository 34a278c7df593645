import FirePack

// One question answered by the zero-copy reader without decoding anything else.

/// The sum of every coordinate in canada.json (features[].geometry.coordinates: rings of [lng, lat] pairs).
func sumOfCoordinates(_ reader: inout FirePackReader) throws -> Double {
    var sum = 0.0
    guard let features = try reader.root["features"] else { return 0 }
    try features.forEachElement { feature in
        guard let rings = try feature.lookup("geometry.coordinates") else { return }
        try rings.forEachElement { ring in
            // A ring of points is packed rows (`D9`): its numbers read in place.
            if let numbers = try ring.numbers() {
                for coordinate in numbers { sum += coordinate }
                return
            }
            try ring.forEachElement { point in
                // A few coordinates are whole numbers (-75), stored as integers.
                try point.forEachElement { coordinate in
                    sum += coordinate.type == .integer ? Double(try coordinate.integer()) : try coordinate.double()
                }
            }
        }
    }
    return sum
}

/// How many statuses in twitter.json have a retweet_count above zero.
func retweetedStatuses(_ reader: inout FirePackReader) throws -> Int {
    var count = 0
    try reader.root["statuses"]?.forEachElement { status in
        if let retweets = try status["retweet_count"], try retweets.integer() > 0 { count += 1 }
    }
    return count
}

/// How many events citm_catalog.json lists under each topic (topicSubTopics maps topic IDs to event IDs).
func eventsPerTopic(_ reader: inout FirePackReader) throws -> [String: Int] {
    var counts: [String: Int] = [:]
    try reader.root["topicSubTopics"]?.forEachEntry { topic, events in counts[topic.string] = try events.count() }
    return counts
}
