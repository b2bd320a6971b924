// yt-gst — decoding and validating a fmt chunk.

extension WAVFormat {
    /// The largest fmt chunk a writer can make: WAVEFORMATEX's 18 bytes and the extension its 16-bit cbSize counts.
    static let maxChunkSize: UInt64 = 18 + UInt64(UInt16.max)

    /// Decodes a fmt chunk body: WAVEFORMAT, WAVEFORMATEX or WAVEFORMATEXTENSIBLE.
    ///
    /// PCM and float are validated strictly enough that the feeder can trust `blockAlign`, `bitsPerSample` and
    /// `channels`. Other codecs are only described: `info` shows them and `requirePlayableRaw()` refuses them.
    /// - Parameters:
    ///   - body: The first bytes of the chunk (the reader passes at most 64 KiB of it).
    ///   - declaredSize: The chunk size from its header, which may be larger than `body`.
    ///   - warnings: Receives one line for each oddity that does not stop the file from playing.
    /// - Throws: `WAVError` of kind `.invalidFormat`, naming the field at fault.
    init(
        fmtChunk body: [UInt8], declaredSize: UInt64, byteOrder: ByteOrder, warnings: inout [String]
    ) throws(WAVError) {
        guard declaredSize >= 16, body.count >= 16 else {
            throw WAVError(.invalidFormat, "fmt chunk is \(declaredSize) bytes; it needs at least 16")
        }
        let tag = byteOrder.uint16(body, at: 0)
        let channels = Int(byteOrder.uint16(body, at: 2))
        let sampleRate = Int(byteOrder.uint32(body, at: 4))
        let averageBytesPerSecond = Int(byteOrder.uint32(body, at: 8))
        let blockAlign = Int(byteOrder.uint16(body, at: 12))
        let headerBits = Int(byteOrder.uint16(body, at: 14))
        guard channels >= 1 else { throw WAVError(.invalidFormat, "channel count is 0") }
        guard sampleRate >= 1 else { throw WAVError(.invalidFormat, "sample rate is 0") }
        guard blockAlign >= 1 else { throw WAVError(.invalidFormat, "block align is 0") }

        // cbSize belongs to WAVEFORMATEX; plain PCM may use the 16-byte WAVEFORMAT and then extra bytes mean nothing.
        let extensionSize = body.count >= 18 ? Int(byteOrder.uint16(body, at: 16)) : nil
        if tag != 0x0001 {
            Self.checkExtensionSize(extensionSize, declaredSize: declaredSize, warnings: &warnings)
        }
        let extensible =
            tag == 0xFFFE
            ? try Extensible(body, declaredSize: declaredSize, extensionSize: extensionSize, byteOrder: byteOrder)
            : nil

        // An unknown GUID family makes the first two bytes meaningless: such a file is just "extensible".
        let effectiveTag = extensible.map { FormatTag.isKnownSubFormat($0.guid) ? $0.subTag : tag } ?? tag
        let encoding = Self.encoding(of: effectiveTag)
        var sample = (container: headerBits, validBits: headerBits, frameBytes: blockAlign)
        if encoding != .compressed {
            (sample.container, sample.validBits) = try Self.sampleSize(
                encoding: encoding, tag: tag, channels: channels, blockAlign: blockAlign, headerBits: headerBits,
                validBitsField: extensible?.validBits, warnings: &warnings)
        }
        if effectiveTag == 0x0006 || effectiveTag == 0x0007, blockAlign != channels {
            // One byte per sample whatever the header says (riff-media fixes the same fields the same way).
            warnings.append(
                "\(effectiveTag == 6 ? "A-law" : "mu-law") block align is \(blockAlign) for \(channels) channels;"
                    + " using \(channels)")
            sample = (container: 8, validBits: 8, frameBytes: channels)
        }
        self.init(
            formatTag: tag, subFormatTag: extensible?.subTag, subFormatGUID: extensible?.guid, encoding: encoding,
            byteOrder: byteOrder, channels: channels, sampleRate: sampleRate, bitsPerSample: sample.container,
            validBits: sample.validBits, blockAlign: sample.frameBytes,
            channelMask: extensible.flatMap { $0.mask == 0 ? nil : $0.mask }
        )
        self.averageBytesPerSecond = averageBytesPerSecond
        if encoding == .compressed, let extensionSize {
            extraData = Self.codecBytes(body, extensionSize: extensionSize, extensible: tag == 0xFFFE)
        }
    }

    /// The WAVE_FORMAT_EXTENSIBLE fields after cbSize: valid bits, channel mask and the SubFormat GUID.
    private struct Extensible {
        var validBits: Int
        var mask: UInt32
        /// The GUID's first two bytes, a format tag in the known GUID families.
        var subTag: UInt16
        var guid: String

        /// Reads the 22-byte extension, which an extensible fmt chunk must hold whole.
        init(_ body: [UInt8], declaredSize: UInt64, extensionSize: Int?, byteOrder: ByteOrder) throws(WAVError) {
            guard declaredSize >= 40, body.count >= 40 else {
                throw WAVError(
                    .invalidFormat, "WAVE_FORMAT_EXTENSIBLE needs a 40-byte fmt chunk; this one is \(declaredSize)")
            }
            guard let extensionSize, extensionSize >= 22 else {
                throw WAVError(
                    .invalidFormat,
                    "WAVE_FORMAT_EXTENSIBLE needs a 22-byte extension; cbSize is \(extensionSize ?? 0)")
            }
            validBits = Int(byteOrder.uint16(body, at: 18))
            mask = byteOrder.uint32(body, at: 20)
            subTag = UInt16(truncatingIfNeeded: byteOrder.uint32(body, at: 24))
            guid = Hex.guid(body, at: 24, byteOrder: byteOrder)
        }
    }

    /// Warns when cbSize is cut off or claims more bytes than the chunk holds; a codec may still decode without them.
    private static func checkExtensionSize(_ extensionSize: Int?, declaredSize: UInt64, warnings: inout [String]) {
        if declaredSize == 17 {
            warnings.append("fmt chunk is 17 bytes: its extension size field (cbSize) is cut off")
        } else if let extensionSize, UInt64(18 + extensionSize) > declaredSize {
            warnings.append(
                "fmt extension declares \(extensionSize) bytes but the fmt chunk holds only \(declaredSize - 18)")
        }
    }

    /// PCM and float are the encodings the feeder pushes raw; every other tag needs a decoder.
    private static func encoding(of tag: UInt16) -> SampleEncoding {
        switch tag {
        case 0x0001: .pcm
        case 0x0003: .float
        default: .compressed
        }
    }

    /// The codec's own bytes, which travel to the decoder as `codec_data`: after cbSize, or after the 22-byte
    /// extension of an extensible fmt.
    private static func codecBytes(_ body: [UInt8], extensionSize: Int, extensible: Bool) -> [UInt8] {
        let start = extensible ? 40 : 18
        let end = min(18 + extensionSize, body.count)
        return end > start ? Array(body[start..<end]) : []
    }

    /// The container and valid bits of a PCM or float sample, validated.
    ///
    /// Block align decides the container, since that is how the bytes are laid out; the header's bit count only says
    /// how many of them matter (12 in 16, 20 in 24, 24 in 32).
    private static func sampleSize(
        encoding: SampleEncoding, tag: UInt16, channels: Int, blockAlign: Int, headerBits: Int, validBitsField: Int?,
        warnings: inout [String]
    ) throws(WAVError) -> (container: Int, validBits: Int) {
        guard blockAlign % channels == 0 else {
            throw WAVError(.invalidFormat, "block align \(blockAlign) is not a multiple of \(channels) channels")
        }
        let container = blockAlign / channels * 8
        if encoding == .float {
            guard container == 32 || container == 64 else {
                throw WAVError(
                    .invalidFormat,
                    "\(container)-bit float samples (block align \(blockAlign), \(channels) channels);"
                        + " only 32 and 64 exist")
            }
            guard headerBits == container || headerBits == 0 else {
                throw WAVError(
                    .invalidFormat, "float wBitsPerSample \(headerBits) does not match \(container / 8)-byte samples")
            }
            return (container, container)
        }
        // 48-bit integers only come with WAVE_FORMAT_EXTENSIBLE (rochars/wavefile writes them; scipy reads them);
        // GStreamer has no raw format for them, so the feeder must convert or refuse.
        guard [8, 16, 24, 32].contains(container) || (container == 48 && tag == 0xFFFE) else {
            throw WAVError(
                .invalidFormat,
                "\(container)-bit integer samples are not supported (block align \(blockAlign), \(channels) channels,"
                    + " wBitsPerSample \(headerBits))")
        }
        var validBits = validBitsField ?? headerBits
        if validBits == 0 {
            validBits = container
        } else if validBits > container {
            warnings.append(
                "\(validBits)-bit samples do not fit the \(container)-bit slots block align gives; using \(container)")
            validBits = container
        } else if validBitsField == nil, (headerBits + 7) / 8 * 8 != container {
            warnings.append(
                "wBitsPerSample is \(headerBits) but block align gives \(container)-bit samples;"
                    + " playing \(container)-bit")
        }
        return (container, validBits)
    }
}
