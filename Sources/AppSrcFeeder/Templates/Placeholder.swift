// yt-gst — ${key} placeholders in template property values.

/// `${key}`, `${key:-default}` inside a value.
enum Placeholder {
    /// Every placeholder in `text`, in order.
    static func scan(_ text: String) -> [(key: String, fallback: String?)] {
        var result: [(String, String?)] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "${"), let close = rest[open.upperBound...].firstIndex(of: "}") {
            let body = rest[open.upperBound..<close]
            if let dash = body.firstRange(of: ":-") {
                result.append((String(body[..<dash.lowerBound]), String(body[dash.upperBound...])))
            } else {
                result.append((String(body), nil))
            }
            rest = rest[rest.index(after: close)...]
        }
        return result
    }

    /// `text` with every placeholder replaced; nil when an optional one has no value (leave the property alone).
    /// - Throws: the key of a required placeholder that has no value.
    static func fill(_ text: String, with values: [String: String]) throws(MissingValue) -> String? {
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstRange(of: "${"), let close = rest[open.upperBound...].firstIndex(of: "}") {
            out += rest[..<open.lowerBound]
            let body = rest[open.upperBound..<close]
            let key = body.firstRange(of: ":-").map { String(body[..<$0.lowerBound]) } ?? String(body)
            let fallback = body.firstRange(of: ":-").map { String(body[$0.upperBound...]) }
            if let value = values[key] {
                out += value
            } else if let fallback, !fallback.isEmpty {
                out += fallback
            } else if fallback != nil {
                return nil
            } else {
                throw MissingValue(key: key)
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    struct MissingValue: Error { var key: String }
}
