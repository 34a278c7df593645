import FirestoreProtos
import Foundation
import GuideModels

// What a user of gRPC writes: the guide's models to and from generated google.firestore.v1 messages.

struct MappingError: Error { var field: String }

extension Google_Firestore_V1_Value {
    init(string: String) { self.init(); stringValue = string }
    init(integer: Int) { self.init(); integerValue = Int64(integer) }
    init(fields: [String: Google_Firestore_V1_Value]) { self.init(); mapValue.fields = fields }
    init(values: [Google_Firestore_V1_Value]) { self.init(); arrayValue.values = values }

    func string(_ field: String) throws -> String {
        guard case .stringValue(let text)? = valueType else { throw MappingError(field: field) }
        return text
    }
    func integer(_ field: String) throws -> Int {
        guard case .integerValue(let number)? = valueType else { throw MappingError(field: field) }
        return Int(number)
    }
    func fields(_ field: String) throws -> [String: Google_Firestore_V1_Value] {
        guard case .mapValue(let map)? = valueType else { throw MappingError(field: field) }
        return map.fields
    }
    func values(_ field: String) throws -> [Google_Firestore_V1_Value] {
        guard case .arrayValue(let array)? = valueType else { throw MappingError(field: field) }
        return array.values
    }
}

extension Dictionary where Key == String, Value == Google_Firestore_V1_Value {
    func required(_ key: String) throws -> Google_Firestore_V1_Value {
        guard let value = self[key] else { throw MappingError(field: key) }
        return value
    }
}

extension Book {
    var message: Google_Firestore_V1_Value {
        .init(fields: ["title": .init(string: title), "numberOfPages": .init(integer: numberOfPages), "author": .init(string: author)])
    }

    init(message: Google_Firestore_V1_Value) throws {
        let fields = try message.fields("book")
        self.init(title: try fields.required("title").string("title"), numberOfPages: try fields.required("numberOfPages").integer("numberOfPages"),
                  author: try fields.required("author").string("author"))
    }
}

extension BookWithTags {
    var message: Google_Firestore_V1_Value {
        var fields: [String: Google_Firestore_V1_Value] = [
            "title": .init(string: title), "numberOfPages": .init(integer: numberOfPages), "author": .init(string: author),
            "genres": .init(values: genres.map { .init(string: $0) }),
            "tags": .init(values: tags.map { .init(fields: ["title": .init(string: $0.title), "color": .init(string: $0.color.hex)]) }),
        ]
        if let cover {
            var images: [String: Google_Firestore_V1_Value] = ["small": .init(string: cover.small.absoluteString), "large": .init(string: cover.large.absoluteString)]
            if let medium = cover.medium { images["medium"] = .init(string: medium.absoluteString) }
            fields["cover"] = .init(fields: images)
        }
        return .init(fields: fields)
    }

    init(message: Google_Firestore_V1_Value) throws {
        let fields = try message.fields("book")
        var cover: CoverImages?
        if let images = try fields["cover"]?.fields("cover") {
            func url(_ key: String) throws -> URL {
                guard let url = URL(string: try images.required(key).string(key)) else { throw MappingError(field: key) }
                return url
            }
            cover = CoverImages(small: try url("small"), medium: images["medium"] == nil ? nil : try url("medium"), large: try url("large"))
        }
        self.init(title: try fields.required("title").string("title"), numberOfPages: try fields.required("numberOfPages").integer("numberOfPages"),
                  author: try fields.required("author").string("author"), cover: cover,
                  genres: try fields.required("genres").values("genres").map { try $0.string("genres") },
                  tags: try fields.required("tags").values("tags").map { tag in
                      let tagFields = try tag.fields("tag")
                      return Tag(title: try tagFields.required("title").string("title"), color: Color(hex: try tagFields.required("color").string("color")))
                  })
    }
}
