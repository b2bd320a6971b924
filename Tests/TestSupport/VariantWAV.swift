// yt-gst — WAV files assembled by tests from a fmt body and audio bytes, in any container and with the header edges
// real writers produce (streaming sizes, sizes past the end, chunks before fmt and after data, metadata chunks).

/// The containers the reader accepts.
public enum TestContainer: String, CaseIterable, Sendable {
    case riff = "RIFF", rifx = "RIFX", rf64 = "RF64", bw64 = "BW64", wave64 = "Wave64"
}

/// Header edges the tests generate.
public enum TestEdge: String, CaseIterable, Sendable {
    /// A well-formed file: fmt, fact (for compressed), data.
    case plain
    /// LIST/INFO and JUNK before fmt, a cue chunk and odd-sized chunk after data.
    case chunksAround
    /// The data size (and RIFF size) say 0: a recorder never came back to fix them (RIFF and RIFX only).
    case streamingZero
    /// The data size says 0xFFFFFFFF (RIFF and RIFX only).
    case streamingUnknown
    /// The data chunk declares more than the file holds (the file was cut).
    case pastEnd

    /// Whether the edge exists in `container` (streaming sizes are a 32-bit RIFF thing).
    public func applies(to container: TestContainer) -> Bool {
        switch self {
        case .streamingZero, .streamingUnknown: container == .riff || container == .rifx
        default: true
        }
    }
}

public struct VariantWAV: Sendable {
    /// The fmt chunk body in little-endian order, as a RIFF writer stores it.
    public var fmt: [UInt8]
    /// The data chunk, little-endian samples for PCM/float.
    public var data: [UInt8]
    /// The fact chunk's sample count, if any.
    public var factFrames: UInt32?
    /// Extra chunks written before fmt (id, body) and after the data.
    public var before: [(String, [UInt8])] = []
    public var after: [(String, [UInt8])] = []

    public init(fmt: [UInt8], data: [UInt8], factFrames: UInt32? = nil) {
        self.fmt = fmt
        self.data = data
        self.factFrames = factFrames
    }

    /// A fmt body: WAVEFORMATEX with `extra` after cbSize (or the 16-byte WAVEFORMAT when `extra` is nil and the tag
    /// is PCM).
    public static func fmtBody(
        tag: UInt16, channels: Int, rate: Int, bytesPerSecond: Int, blockAlign: Int, bits: Int, extra: [UInt8]? = nil
    ) -> [UInt8] {
        var out: [UInt8] = []
        le16(&out, Int(tag))
        le16(&out, channels)
        le32(&out, rate)
        le32(&out, bytesPerSecond)
        le16(&out, blockAlign)
        le16(&out, bits)
        if let extra {
            le16(&out, extra.count)
            out += extra
        }
        return out
    }

    /// LIST/INFO body with the given (id, text) entries, NUL-terminated and padded.
    public static func infoList(_ entries: [(String, String)], bigEndian: Bool = false) -> [UInt8] {
        var out = Array("INFO".utf8)
        for (id, text) in entries {
            let value = Array(text.utf8) + [0]
            out += Array(id.utf8)
            bigEndian ? be32(&out, value.count) : le32(&out, value.count)
            out += value
            if value.count % 2 == 1 { out.append(0) }
        }
        return out
    }

    /// The file in `container` with `edge`. `sampleBytes` is the width to byte-swap PCM samples by for RIFX (1 or
    /// nil: leave the data as it is, as for compressed data).
    public func bytes(container: TestContainer, edge: TestEdge, sampleBytes: Int? = nil) -> [UInt8] {
        var chunks: [(String, [UInt8])] = []
        var beforeChunks = before
        var afterChunks = after
        if edge == .chunksAround {
            let list = Self.infoList([("INAM", "variant"), ("IART", "yt-gst")], bigEndian: container == .rifx)
            beforeChunks += [("LIST", list), ("JUNK", [UInt8](repeating: 0, count: 12))]
            var cue: [UInt8] = []
            Self.le32(&cue, 1)
            Self.le32(&cue, 1)
            Self.le32(&cue, 0)
            cue += Array("data".utf8)
            Self.le32(&cue, 0)
            Self.le32(&cue, 0)
            Self.le32(&cue, 10)
            afterChunks += [("cue ", cue), ("odd ", [1, 2, 3])]
        }
        chunks += beforeChunks
        chunks.append(("fmt ", container == .rifx ? Self.swappedFmt(fmt) : fmt))
        if let factFrames {
            var fact: [UInt8] = []
            Self.le32(&fact, Int(factFrames))
            chunks.append(("fact", container == .rifx ? fact.reversed() : fact))
        }
        var audio = data
        if container == .rifx, let width = sampleBytes, width > 1 {
            for start in stride(from: 0, to: audio.count - width + 1, by: width) {
                audio[start..<start + width].reverse()
            }
        }
        switch container {
        case .wave64: return wave64(chunks: chunks, audio: audio, after: afterChunks, edge: edge)
        default: return riff(container: container, chunks: chunks, audio: audio, after: afterChunks, edge: edge)
        }
    }

    private func riff(
        container: TestContainer, chunks: [(String, [UInt8])], audio: [UInt8], after: [(String, [UInt8])],
        edge: TestEdge
    ) -> [UInt8] {
        let big = container == .rifx
        let is64 = container == .rf64 || container == .bw64
        func u32(_ out: inout [UInt8], _ v: Int) { big ? Self.be32(&out, v) : Self.le32(&out, v) }
        var body: [UInt8] = Array("WAVE".utf8)
        let declaredData = edge == .pastEnd ? audio.count + 1000 : audio.count
        if is64 {
            body += Array("ds64".utf8)
            Self.le32(&body, 28)
            body += [UInt8](repeating: 0, count: 8)  // RIFF size, patched below
            Self.le64(&body, UInt64(declaredData))
            Self.le64(&body, UInt64(factFrames ?? 0))
            Self.le32(&body, 0)
        }
        for (id, chunk) in chunks {
            body += Array(id.utf8)
            u32(&body, chunk.count)
            body += chunk
            if chunk.count % 2 == 1 { body.append(0) }
        }
        body += Array("data".utf8)
        switch edge {
        case .streamingZero: u32(&body, 0)
        case .streamingUnknown: u32(&body, 0xFFFF_FFFF)
        default: u32(&body, is64 ? 0xFFFF_FFFF : declaredData)
        }
        body += audio
        if edge != .streamingZero, edge != .streamingUnknown, edge != .pastEnd {
            if audio.count % 2 == 1 { body.append(0) }
            for (id, chunk) in after {
                body += Array(id.utf8)
                u32(&body, chunk.count)
                body += chunk
                if chunk.count % 2 == 1 { body.append(0) }
            }
        }
        var out = Array((is64 ? container.rawValue : big ? "RIFX" : "RIFF").utf8)
        switch edge {
        case .streamingZero: u32(&out, 0)
        case .streamingUnknown: u32(&out, 0xFFFF_FFFF)
        default: u32(&out, is64 ? 0xFFFF_FFFF : body.count + (edge == .pastEnd ? 1000 : 0))
        }
        out += body
        if is64 {
            var size: [UInt8] = []
            Self.le64(&size, UInt64(out.count - 8 + (edge == .pastEnd ? 1000 : 0)))
            out.replaceSubrange(20..<28, with: size)
        }
        return out
    }

    private func wave64(
        chunks: [(String, [UInt8])], audio: [UInt8], after: [(String, [UInt8])], edge: TestEdge
    )
        -> [UInt8]
    {
        func guid(_ id: String) -> [UInt8] {
            let head = Array(id.utf8)
            let tail: [UInt8] =
                id == "riff"
                ? [0x2E, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00]
                : id == "list"
                    ? [0x2F, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00]
                    : [0xF3, 0xAC, 0xD3, 0x11, 0x8C, 0xD1, 0x00, 0xC0, 0x4F, 0x8E, 0xDB, 0x8A]
            return head + tail
        }
        func chunk(_ out: inout [UInt8], _ id: String, _ body: [UInt8], declared: Int? = nil) {
            let w64id = id == "LIST" ? "list" : id == "JUNK" ? "junk" : id
            out += guid(w64id)
            Self.le64(&out, UInt64((declared ?? body.count) + 24))
            out += body
            while out.count % 8 != 0 { out.append(0) }
        }
        var body: [UInt8] = guid("wave")
        for (id, c) in chunks { chunk(&body, id, c) }
        if edge == .pastEnd {
            body += guid("data")
            Self.le64(&body, UInt64(audio.count + 1000 + 24))
            body += audio
        } else {
            chunk(&body, "data", audio)
            for (id, c) in after { chunk(&body, id, c) }
        }
        var out = guid("riff")
        Self.le64(&out, UInt64(body.count + 24))
        return out + body
    }

    /// The fmt body with its fields in big-endian order (the 16-bit extension words too: IMA and MS ADPCM
    /// extensions are 16-bit words).
    static func swappedFmt(_ fmt: [UInt8]) -> [UInt8] {
        var out = fmt
        let widths = [2, 2, 4, 4, 2, 2]
        var at = 0
        for width in widths where at + width <= out.count {
            out[at..<at + width].reverse()
            at += width
        }
        while at + 2 <= out.count {
            out[at..<at + 2].reverse()
            at += 2
        }
        return out
    }

    public static func le16(_ out: inout [UInt8], _ v: Int) {
        out.append(UInt8(truncatingIfNeeded: v))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    public static func le32(_ out: inout [UInt8], _ v: Int) {
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    public static func be32(_ out: inout [UInt8], _ v: Int) {
        for i in (0..<4).reversed() { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    public static func le64(_ out: inout [UInt8], _ v: UInt64) {
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> UInt64(8 * i))) }
    }
}
