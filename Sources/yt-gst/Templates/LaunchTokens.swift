// yt-gst — just enough gst-launch tokenising to find where properties and elements are.

enum LaunchTokens {
    /// Splits launch text at whitespace outside quotes, with `!` always its own token.
    static func split(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var quote: Character?
        var escaped = false
        func flush() {
            if !current.isEmpty { tokens.append(current) }
            current = ""
        }
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                current.append(character)
                escaped = true
            } else if let open = quote {
                current.append(character)
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                current.append(character)
                quote = character
            } else if character == "!" {
                flush()
                tokens.append("!")
            } else if character.isWhitespace {
                flush()
            } else {
                current.append(character)
            }
        }
        flush()
        return tokens
    }

    enum Kind: Equatable {
        /// `!`
        case link
        /// A media type with fields: `audio/x-raw,format=S16BE`.
        case caps
        /// `rtp.send_rtp_src_0` or `rtp.`: a pad of a named element.
        case padReference
        /// `name=value` (value unquoted).
        case property(String, String)
        /// A bare word: an element factory.
        case factory
    }

    static func kind(of token: String) -> Kind {
        if token == "!" { return .link }
        let equals = token.firstIndex(of: "=")
        if let slash = token.firstIndex(of: "/"), equals.map({ slash < $0 }) ?? true { return .caps }
        if let equals {
            return .property(String(token[..<equals]), unquote(String(token[token.index(after: equals)...])))
        }
        return token.contains(".") ? .padReference : .factory
    }

    /// A value without its surrounding quotes.
    static func unquote(_ value: String) -> String {
        if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
            return String(value.dropFirst().dropLast())
        }
        return value
    }

    /// The `name=` of the element whose factory token is at `element`, if it has one.
    static func nameProperty(in tokens: [String], element: Int) -> String? {
        var index = element + 1
        while index < tokens.count, tokens[index] != "!", tokens[index].contains("=") {
            if tokens[index].hasPrefix("name=") { return unquote(String(tokens[index].dropFirst(5))) }
            index += 1
        }
        return nil
    }
}
