// yt-gst — how the bytes of a data chunk divide into packets a decoder can take whole.

extension WAVFormat {
    /// How the data chunk is cut into pushed packets.
    public var packetization: Packetization {
        switch effectiveTag {
        case 0x0001, 0x0003, 0x0006, 0x0007: return .frames
        case 0x0002, 0x0011, 0x0031, 0x0032: return .blocks(framesPerBlock: samplesPerBlock)
        case 0x0050, 0x0055, 0x00FF, 0x4143, 0x706D, 0x2000, 0x2001, 0x0092: return .stream
        default: return blockAlign > 1 ? .blocks(framesPerBlock: nil) : .stream
        }
    }

    /// Frames one block decodes to, for the block codecs whose header fixes it; nil when unknown or impossible.
    ///
    /// Computed from the block size the way the decoders compute it (GStreamer's adpcmdec and libsndfile), so the
    /// count matches what comes out; a different wSamplesPerBlock in the header only earns a warning.
    public var samplesPerBlock: Int? {
        switch effectiveTag {
        case 0x0011:
            // 4 header bytes per channel (first sample + step index), then 4-bit codes: 2 samples a byte.
            let bits = bitsPerSample == 3 ? 3 : 4
            let payload = blockAlign - 4 * channels
            guard payload > 0, payload % (4 * channels) == 0 || bits == 3 else { return nil }
            return payload * 8 / (bits * channels) + 1
        case 0x0002:
            // 7 header bytes per channel (predictor, delta, two samples), then 4-bit codes.
            let payload = blockAlign - 7 * channels
            guard payload >= 0 else { return nil }
            return payload * 2 / channels + 2
        case 0x0031, 0x0032:
            // WAV49 GSM: two 32.5-byte GSM frames of 160 samples in each 65-byte block.
            guard channels == 1, blockAlign >= 65, blockAlign % 65 == 0 else { return nil }
            return blockAlign / 65 * 320
        default:
            return nil
        }
    }

    /// wSamplesPerBlock from the fmt extension (IMA ADPCM, MS ADPCM, GSM), when present.
    public var declaredSamplesPerBlock: Int? {
        guard extraData.count >= 2 else { return nil }
        switch effectiveTag {
        case 0x0002, 0x0011, 0x0031, 0x0032: return Int(byteOrder.uint16(extraData, at: 0))
        default: return nil
        }
    }
}
