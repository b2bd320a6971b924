// yt-gst — pure reading and rewriting of gst-launch descriptions (no GStreamer call): the elements as written, and
// putting a decoder after the appsrc.

/// Operations on gst-launch pipeline descriptions, as text.
///
/// The descriptions follow gst-launch syntax (GStreamer's `gst/parse/grammar.y` and `parse.l`): elements are a
/// factory name and `key=value` properties (spaces allowed around `=`, values in double or single quotes with
/// backslash escapes), `!` links, `name.` or `name.pad` references, `(` `)` bins. Only as much of it is tokenised
/// as it takes to find elements, their properties and the links between them; this is the one tokeniser of the
/// project (templates use `elements(in:)` to find their placeholders).
public enum Launch {
    /// Elements that already decode: a description that has one right after the source is left as it is.
    static let decoders: Set<String> = ["decodebin", "decodebin3", "parsebin", "mpegaudioparse", "mpg123audiodec"]

    /// `launch` with `decoder` linked right after the element named `name` (the appsrc compressed audio comes
    /// from), so the rest of the pipeline receives raw audio.
    ///
    /// - `appsrc name=src ! audioconvert ! autoaudiosink` becomes
    ///   `appsrc name=src ! decodebin ! audioconvert ! autoaudiosink`;
    /// - properties and quoted values in the appsrc's description are kept as written
    ///   (`appsrc is-live=true name="src" caps="audio/x-raw, rate=8000" ! ...`);
    /// - when the appsrc is not linked where it stands but through a reference (`... appsrc name=src  src. ! q`),
    ///   the decoder goes after the reference (`src. ! decodebin ! q`);
    /// - a description already decoding right after the source, or without such an element, comes back unchanged.
    ///
    /// PCM needs none of this: call it only when the file's samples need a decoder (`WAVFeeder.needsDecoder`).
    /// - Parameters:
    ///   - name: the source's `name` property ("src").
    ///   - launch: a gst-launch description.
    ///   - decoder: the launch text of the decoder to insert (default `decodebin`, which picks the installed one).
    public static func insertingDecoder(
        afterSource name: String, in launch: String, decoder: String = "decodebin"
    )
        -> String
    {
        inserting(decoder, afterSource: name, in: launch, unlessDecoding: true)
    }

    /// `launch` with `fragment` (e.g. `audioconvert ! volume name=volume ! audioconvert`) linked right after the
    /// element named `name`, found as `insertingDecoder` finds it; unchanged when there is no such place.
    public static func inserting(_ fragment: String, afterSource name: String, in launch: String) -> String {
        inserting(fragment, afterSource: name, in: launch, unlessDecoding: false)
    }

    private static func inserting(
        _ fragment: String, afterSource name: String, in launch: String, unlessDecoding: Bool
    )
        -> String
    {
        let tokens = tokenize(launch)
        let elements = parseElements(tokens)
        guard let source = elements.first(where: { $0.value(of: "name") == name }) else { return launch }

        // The link leaving the source: right after its description, or after a `name.` / `name.pad` reference.
        var linkAfter: Int?
        if source.lastToken + 1 < tokens.count, tokens[source.lastToken + 1].kind == .link {
            linkAfter = source.lastToken
        } else {
            for (index, token) in tokens.enumerated() where token.kind == .word && index + 1 < tokens.count {
                guard tokens[index + 1].kind == .link, Self.isReference(token.text, to: name) else { continue }
                linkAfter = index
                break
            }
        }
        guard let linkAfter else { return launch }
        // Already decoding: the element after the link is a decoder.
        if unlessDecoding, let next = elements.first(where: { $0.firstToken == linkAfter + 2 }),
            decoders.contains(next.factory)
        {
            return launch
        }
        let cut = tokens[linkAfter].range.upperBound
        return replacing([(cut..<cut, " ! \(fragment)")], in: launch)
    }

    /// `launch` with text put in place of unicode scalar ranges (an empty range inserts); the rest stays as
    /// written. Edits must not overlap; an insertion goes before a removal that starts at the same place.
    public static func replacing(_ edits: [(range: Range<Int>, text: String)], in launch: String) -> String {
        let scalars = Array(launch.unicodeScalars)
        var result = String.UnicodeScalarView()
        var position = 0
        for edit in edits.sorted(by: { ($0.range.lowerBound, $0.range.count) < ($1.range.lowerBound, $1.range.count) })
        {
            result.append(contentsOf: scalars[position..<edit.range.lowerBound])
            result.append(contentsOf: edit.text.unicodeScalars)
            position = edit.range.upperBound
        }
        result.append(contentsOf: scalars[position...])
        return String(result)
    }

    /// `src.`, `src.src`: a reference to the element `name` (or one of its pads).
    static func isReference(_ word: String, to name: String) -> Bool {
        guard let dot = word.firstIndex(of: "."), word[..<dot] == name else { return false }
        return !word[word.index(after: dot)...].contains("=")
    }

    // MARK: Tokens

    struct Token: Equatable {
        enum Kind: Equatable { case word, link, open, close }
        var kind: Kind
        /// The text with quotes removed and escapes resolved (words only).
        var text: String
        /// Unicode scalar offsets in the description.
        var range: Range<Int>
    }

    /// Splits a description into words, `!` links and bin parentheses; quoted text stays inside its word.
    static func tokenize(_ launch: String) -> [Token] {
        let scalars = Array(launch.unicodeScalars)
        var tokens: [Token] = []
        var index = 0
        while index < scalars.count {
            let c = scalars[index]
            if c.properties.isWhitespace {
                index += 1
            } else if c == "!" {
                tokens.append(Token(kind: .link, text: "!", range: index..<index + 1))
                index += 1
            } else if c == "(" || c == ")" {
                tokens.append(Token(kind: c == "(" ? .open : .close, text: String(c), range: index..<index + 1))
                index += 1
            } else {
                let start = index
                var text = String.UnicodeScalarView()
                var quote: Unicode.Scalar?
                while index < scalars.count {
                    let c = scalars[index]
                    if let open = quote {
                        if c == "\\", index + 1 < scalars.count {
                            text.append(scalars[index + 1])
                            index += 2
                            continue
                        }
                        if c == open { quote = nil } else { text.append(c) }
                    } else if c == "\"" || c == "'" {
                        quote = c
                    } else if c.properties.isWhitespace || c == "!" || c == ")" || (c == "(" && text.isEmpty) {
                        break
                    } else if c == "\\", index + 1 < scalars.count {
                        text.append(scalars[index + 1])
                        index += 2
                        continue
                    } else {
                        text.append(c)
                    }
                    index += 1
                }
                // `bin.(` opens a named bin: the parenthesis is its own token.
                if text.last == "(" {
                    text.removeLast()
                    tokens.append(Token(kind: .word, text: String(text), range: start..<index - 1))
                    tokens.append(Token(kind: .open, text: "(", range: index - 1..<index))
                } else {
                    tokens.append(Token(kind: .word, text: String(text), range: start..<index))
                }
            }
        }
        return tokens
    }

    // MARK: Elements

    /// An element as written: its factory name and its `key=value` properties, in order.
    public struct ElementDescription: Equatable, Sendable {
        /// The factory name as written ("appsrc", "audioconvert").
        public var factory: String
        /// Its `key=value` properties, in the order written.
        public var properties: [Property]
        /// Where the factory name is, in unicode scalar offsets into the description.
        public var factoryRange: Range<Int>
        /// Indices into the token list: the factory name and the last property.
        var firstToken: Int
        var lastToken: Int

        /// The value of property `key` (unquoted, escapes resolved), if the description sets it.
        public func value(of key: String) -> String? { properties.last { $0.key == key }?.value }
    }

    /// One `key=value` of an element, with where it is written (unicode scalar offsets, `key` to the end of the
    /// value, spaces around `=` included).
    public struct Property: Equatable, Sendable {
        /// The property name, without the spaces around `=`.
        public var key: String
        /// The value, unquoted and with escapes resolved.
        public var value: String
        /// Where `key=value` is written, so a rewrite can replace it and keep the rest as written.
        public var range: Range<Int>
    }

    /// The elements of a gst-launch description, in the order written. Caps and `name.pad` references are not
    /// elements.
    public static func elements(in launch: String) -> [ElementDescription] { parseElements(tokenize(launch)) }

    /// The elements of a description: a factory name followed by its `key=value` properties. Caps (`a/b,...`) and
    /// references (`name.pad`) are not elements.
    static func parseElements(_ tokens: [Token]) -> [ElementDescription] {
        var elements: [ElementDescription] = []
        var current: ElementDescription?
        var index = 0
        func finish() {
            if let element = current { elements.append(element) }
            current = nil
        }
        while index < tokens.count {
            let token = tokens[index]
            guard token.kind == .word else {
                finish()
                index += 1
                continue
            }
            // `key=value`, `key= value`, `key =value` and `key = value` are one property.
            var words = [token.text]
            var last = index
            if !token.text.contains("="), last + 1 < tokens.count, tokens[last + 1].kind == .word,
                tokens[last + 1].text.hasPrefix("=")
            {
                last += 1
                words.append(tokens[last].text)
            }
            if words.joined().hasSuffix("="), last + 1 < tokens.count, tokens[last + 1].kind == .word {
                last += 1
                words.append(tokens[last].text)
            }
            let joined = words.joined()
            if let equals = joined.firstIndex(of: "="), !isCaps(joined), current != nil {
                let key = String(joined[..<equals]).trimmingSpaces
                let value = String(joined[joined.index(after: equals)...])
                let range = token.range.lowerBound..<tokens[last].range.upperBound
                current?.properties.append(Property(key: key, value: value, range: range))
                current?.lastToken = last
                index = last + 1
                continue
            }
            finish()
            if !isCaps(token.text), !token.text.contains("."), !token.text.contains("=") {
                current = ElementDescription(
                    factory: token.text, properties: [], factoryRange: token.range, firstToken: index, lastToken: index)
            }
            index += 1
        }
        finish()
        return elements
    }

    /// Caps in a link: a media type ("audio/x-raw,format=S16LE", "audio/mpeg").
    static func isCaps(_ word: String) -> Bool {
        guard let slash = word.firstIndex(of: "/") else { return false }
        return !word[..<slash].contains("=")
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
