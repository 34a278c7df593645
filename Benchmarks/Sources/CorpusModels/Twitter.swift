import FirePackMacros

// Codable models covering every field of twitter.json (properties named exactly as its keys).

/// twitter.json: a search API response.
@FirePackCodable
public struct Twitter: Codable {
    public var statuses: [Status]
    public var search_metadata: SearchMetadata
}

@FirePackCodable
public struct SearchMetadata: Codable {
    public var completed_in: Double
    public var max_id: Int64
    public var max_id_str: String
    public var next_results: String
    public var query: String
    public var refresh_url: String
    public var count: Int
    public var since_id: Int64
    public var since_id_str: String
}

@FirePackCodable
public struct Status: Codable {
    public var metadata: StatusMetadata
    public var created_at: String
    public var id: Int64
    public var id_str: String
    public var text: String
    public var source: String
    public var truncated: Bool
    public var in_reply_to_status_id: Int64?
    public var in_reply_to_status_id_str: String?
    public var in_reply_to_user_id: Int64?
    public var in_reply_to_user_id_str: String?
    public var in_reply_to_screen_name: String?
    public var user: User
    public var geo: String?
    public var coordinates: String?
    public var place: String?
    public var contributors: String?
    public var retweet_count: Int
    public var favorite_count: Int
    public var entities: Entities
    public var favorited: Bool
    public var retweeted: Bool
    public var lang: String
    public var retweeted_status: RetweetedStatus?
    public var possibly_sensitive: Bool?
}

/// The same fields as a status, without a nested retweet.
@FirePackCodable
public struct RetweetedStatus: Codable {
    public var metadata: StatusMetadata
    public var created_at: String
    public var id: Int64
    public var id_str: String
    public var text: String
    public var source: String
    public var truncated: Bool
    public var in_reply_to_status_id: Int64?
    public var in_reply_to_status_id_str: String?
    public var in_reply_to_user_id: Int64?
    public var in_reply_to_user_id_str: String?
    public var in_reply_to_screen_name: String?
    public var user: User
    public var geo: String?
    public var coordinates: String?
    public var place: String?
    public var contributors: String?
    public var retweet_count: Int
    public var favorite_count: Int
    public var entities: Entities
    public var favorited: Bool
    public var retweeted: Bool
    public var possibly_sensitive: Bool?
    public var lang: String
}

@FirePackCodable
public struct StatusMetadata: Codable {
    public var result_type: String
    public var iso_language_code: String
}

@FirePackCodable
public struct User: Codable {
    public var id: Int64
    public var id_str: String
    public var name: String
    public var screen_name: String
    public var location: String
    public var description: String
    public var url: String?
    public var entities: UserEntities
    public var protected: Bool
    public var followers_count: Int
    public var friends_count: Int
    public var listed_count: Int
    public var created_at: String
    public var favourites_count: Int
    public var utc_offset: Int?
    public var time_zone: String?
    public var geo_enabled: Bool
    public var verified: Bool
    public var statuses_count: Int
    public var lang: String
    public var contributors_enabled: Bool
    public var is_translator: Bool
    public var is_translation_enabled: Bool
    public var profile_background_color: String
    public var profile_background_image_url: String
    public var profile_background_image_url_https: String
    public var profile_background_tile: Bool
    public var profile_image_url: String
    public var profile_image_url_https: String
    public var profile_banner_url: String?
    public var profile_link_color: String
    public var profile_sidebar_border_color: String
    public var profile_sidebar_fill_color: String
    public var profile_text_color: String
    public var profile_use_background_image: Bool
    public var default_profile: Bool
    public var default_profile_image: Bool
    public var following: Bool
    public var follow_request_sent: Bool
    public var notifications: Bool
}

@FirePackCodable
public struct UserEntities: Codable {
    public var description: URLList
    public var url: URLList?
}

@FirePackCodable
public struct URLList: Codable {
    public var urls: [URLEntity]
}

@FirePackCodable
public struct Entities: Codable {
    public var hashtags: [Hashtag]
    public var symbols: [Hashtag]
    public var urls: [URLEntity]
    public var user_mentions: [Mention]
    public var media: [Media]?
}

@FirePackCodable
public struct Hashtag: Codable {
    public var text: String
    public var indices: [Int]
}

@FirePackCodable
public struct URLEntity: Codable {
    public var url: String
    public var expanded_url: String
    public var display_url: String
    public var indices: [Int]
}

@FirePackCodable
public struct Mention: Codable {
    public var screen_name: String
    public var name: String
    public var id: Int64
    public var id_str: String
    public var indices: [Int]
}

@FirePackCodable
public struct Media: Codable {
    public var id: Int64
    public var id_str: String
    public var indices: [Int]
    public var media_url: String
    public var media_url_https: String
    public var url: String
    public var display_url: String
    public var expanded_url: String
    public var type: String
    public var sizes: Sizes
    public var source_status_id: Int64?
    public var source_status_id_str: String?
}

@FirePackCodable
public struct Sizes: Codable {
    public var medium: Size
    public var small: Size
    public var thumb: Size
    public var large: Size
}

@FirePackCodable
public struct Size: Codable {
    public var w: Int
    public var h: Int
    public var resize: String
}
