// yt-gst — the bytes in front of a recording's samples, laid out once and patched with the sizes as it grows.

/// The header of a WAV being recorded: everything from `RIFF` to the `data` chunk's size field.
///
/// Its length never changes during a recording, so the samples never move: the sizes are patched in place, the
/// `JUNK` chunk EBU Tech 3306 reserves after `WAVE` becomes `ds64` when the file outgrows 32-bit sizes, and the
/// marker area (a `JUNK` chunk too) takes `cue ` and `LIST`/`adtl` chunks as markers come, so markers survive a
/// crash as the audio does. Layout: RIFF/RF64, JUNK/ds64, fmt, [fact], [bext], [LIST/INFO], marker area, data.
struct WAVHeader {
    /// A marker: the frame it marks and its label.
    struct Marker: Equatable {
        var frame: UInt32
        var label: String
    }

    /// The sizes the header states.
    struct Sizes {
        /// The whole file minus the first 8 bytes.
        var riff: UInt64
        /// Bytes of samples (without the pad byte).
        var data: UInt64
        /// Sample frames.
        var frames: UInt64
    }

    let format: WAVFormat
    /// Bytes of the marker area, chunk header included (0: no area).
    let markerArea: Int
    /// The bytes; sizes are patched in by `patch(_:rf64:streaming:)`.
    private(set) var bytes: [UInt8] = []
    /// Where the marker area starts in `bytes`.
    private var markerOffset = 0
    /// Where the fact chunk's sample count is, when there is a fact chunk.
    private var factCountOffset: Int?

    /// The size of the ds64 body EBU Tech 3306 reserves: three 64-bit sizes and an empty table.
    static let ds64BodySize = 28

    /// Lays the header out with no markers in it.
    ///
    /// - Parameters:
    ///   - info: LIST/INFO entries (title, artist, comment...), empty values left out.
    ///   - broadcast: the bext chunk to write, if any.
    init(format: WAVFormat, info: [WAVMetadata.InfoEntry], broadcast: WAVMetadata.Broadcast?, markerArea: Int) {
        self.format = format
        self.markerArea = markerArea
        var out = ChunkWriter()
        out.fourCC("RIFF")
        out.u32(0)
        out.fourCC("WAVE")
        out.chunk("JUNK", [UInt8](repeating: 0, count: Self.ds64BodySize))
        out.chunk("fmt ", Self.formatBody(format))
        if format.formatTag != 0x0001 && format.effectiveTag != 0x0001 {
            factCountOffset = out.bytes.count + 8
            out.chunk("fact", [0, 0, 0, 0])
        }
        if let broadcast { out.chunk("bext", Self.broadcastBody(broadcast)) }
        let entries = info.filter { !$0.value.isEmpty }
        if !entries.isEmpty {
            var list = ChunkWriter()
            list.fourCC("INFO")
            for entry in entries { list.chunk(entry.id, Array(entry.value.utf8) + [0]) }
            out.chunk("LIST", list.bytes)
        }
        markerOffset = out.bytes.count
        if markerArea > 0 { out.chunk("JUNK", [UInt8](repeating: 0, count: markerArea - 8)) }
        out.fourCC("data")
        out.u32(0)
        bytes = out.bytes
    }

    /// Where the samples start.
    var dataOffset: Int { bytes.count }

    /// Puts `markers` into the marker area; false (header unchanged) when they do not fit.
    mutating func place(_ markers: [Marker]) -> Bool {
        guard markerArea > 0 else { return markers.isEmpty }
        var area = ChunkWriter()
        if !markers.isEmpty { area.bytes = Self.markerChunks(markers) }
        let left = markerArea - area.bytes.count
        // The rest must be a JUNK chunk (8 bytes at least) or nothing.
        guard left == 0 || left >= 8 else { return false }
        if left > 0 { area.chunk("JUNK", [UInt8](repeating: 0, count: left - 8)) }
        bytes.replaceSubrange(markerOffset..<markerOffset + markerArea, with: area.bytes)
        return true
    }

    /// Writes `sizes` into the header: 32-bit fields in a RIFF, the ds64 chunk (and 0xFFFFFFFF in the 32-bit fields)
    /// in an RF64, 0xFFFFFFFF everywhere for a stream whose length is unknown.
    mutating func patch(_ sizes: Sizes, rf64: Bool, streaming: Bool = false) {
        let unknown: UInt32 = 0xFFFF_FFFF
        let large = rf64 || streaming
        put(Array((rf64 ? "RF64" : "RIFF").utf8), at: 0)
        put(littleEndian(large ? unknown : UInt32(sizes.riff)), at: 4)
        put(Array((rf64 ? "ds64" : "JUNK").utf8), at: 12)
        var ds64 = [UInt8](repeating: 0, count: Self.ds64BodySize)
        if rf64 {
            ds64 =
                littleEndian(sizes.riff) + littleEndian(sizes.data) + littleEndian(sizes.frames)
                + littleEndian(UInt32(0))
        }
        put(ds64, at: 20)
        if let factCountOffset {
            put(littleEndian(large ? unknown : UInt32(sizes.frames)), at: factCountOffset)
        }
        put(littleEndian(large ? unknown : UInt32(sizes.data)), at: bytes.count - 4)
    }

    private mutating func put(_ value: [UInt8], at offset: Int) {
        bytes.replaceSubrange(offset..<offset + value.count, with: value)
    }

    /// `cue ` with one point per marker (ids 1...n, positions in frames) and LIST/adtl with a `labl` for each.
    static func markerChunks(_ markers: [Marker]) -> [UInt8] {
        var out = ChunkWriter()
        var cue = littleEndian(UInt32(markers.count))
        for (index, marker) in markers.enumerated() {
            let id = UInt32(index + 1)
            // dwName, dwPosition, fccChunk "data", dwChunkStart, dwBlockStart, dwSampleOffset.
            cue +=
                littleEndian(id) + littleEndian(marker.frame) + Array("data".utf8) + littleEndian(UInt32(0))
                + littleEndian(UInt32(0))
                + littleEndian(marker.frame)
        }
        out.chunk("cue ", cue)
        var adtl = ChunkWriter()
        adtl.fourCC("adtl")
        for (index, marker) in markers.enumerated() {
            adtl.chunk("labl", littleEndian(UInt32(index + 1)) + Array(marker.label.utf8) + [0])
        }
        out.chunk("LIST", adtl.bytes)
        return out.bytes
    }

    /// The fmt chunk's body: 16 bytes for PCM, 18 for float, A-law and mu-law, 40 for extensible.
    static func formatBody(_ format: WAVFormat) -> [UInt8] {
        var body =
            littleEndian(format.formatTag) + littleEndian(UInt16(format.channels))
            + littleEndian(UInt32(format.sampleRate))
            + littleEndian(UInt32(format.sampleRate * format.blockAlign)) + littleEndian(UInt16(format.blockAlign))
            + littleEndian(UInt16(format.bitsPerSample))
        if format.formatTag == 0xFFFE {
            // cbSize, wValidBitsPerSample, dwChannelMask, then the SubFormat GUID: the tag in the KSDATAFORMAT family.
            body +=
                littleEndian(UInt16(22)) + littleEndian(UInt16(format.validBits))
                + littleEndian(format.channelMask ?? 0)
            body += littleEndian(UInt32(format.subFormatTag ?? 1)) + [0x00, 0x00, 0x10, 0x00]
            body += [0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        } else if format.formatTag != 0x0001 {
            body += littleEndian(UInt16(0))
        }
        return body
    }

    /// The bext body (EBU Tech 3285 version 1): texts in their fixed fields, the time reference, the coding history.
    static func broadcastBody(_ broadcast: WAVMetadata.Broadcast) -> [UInt8] {
        func field(_ text: String, _ size: Int) -> [UInt8] {
            let bytes = Array(text.utf8.prefix(size))
            return bytes + [UInt8](repeating: 0, count: size - bytes.count)
        }
        var body = field(broadcast.description, 256) + field(broadcast.originator, 32)
        body += field(broadcast.originatorReference, 32) + field(broadcast.originationDate, 10)
        body += field(broadcast.originationTime, 8)
        body += littleEndian(UInt32(truncatingIfNeeded: broadcast.timeReference))
        body += littleEndian(UInt32(truncatingIfNeeded: broadcast.timeReference >> 32))
        body += littleEndian(UInt16(broadcast.version))
        body += [UInt8](repeating: 0, count: 602 - body.count)  // UMID, loudness, reserved
        return body + Array(broadcast.codingHistory.utf8)
    }
}

/// Little-endian bytes of RIFF chunks, appended in order.
struct ChunkWriter {
    var bytes: [UInt8] = []

    mutating func fourCC(_ id: String) { bytes += Array(id.utf8.prefix(4)) }
    mutating func u32(_ value: UInt32) { bytes += littleEndian(value) }

    /// A chunk: id, size, body, and the pad byte an odd size needs.
    mutating func chunk(_ id: String, _ body: [UInt8]) {
        fourCC(id)
        u32(UInt32(body.count))
        bytes += body
        if body.count % 2 == 1 { bytes.append(0) }
    }
}

/// The bytes of `value`, least significant first, as RIFF stores numbers.
func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    (0..<T.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}
