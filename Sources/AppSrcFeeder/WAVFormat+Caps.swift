// yt-gst — GStreamer caps for a WAV's format: raw audio as fed, or the codec's caps for a decoder.
import GstPlayer
import WAV

extension WAVFormat {
    /// How this format is pushed, or nil when it needs a decoder (or has no sensible raw form).
    ///
    /// The container size decides it: a 12-bit sample in 16 bits is S16 (WAV stores it left-justified, so its value
    /// as a 16-bit integer is right), 24 valid bits in 32 is S32.
    public var feedLayout: FeedLayout? {
        let big = byteOrder == .big
        switch (encoding, bytesPerSample) {
        case (.pcm, 1): return .asStored(.u8)
        case (.pcm, 2): return .asStored(big ? .s16BE : .s16LE)
        case (.pcm, 3): return .asStored(big ? .s24BE : .s24LE)
        // Plain PCM that declares 24 bits in 4-byte slots holds them in the low bytes; extensible files left-justify.
        case (.pcm, 4) where formatTag == 1 && validBits == 24: return .asStored(big ? .s24_32BE : .s24_32LE)
        case (.pcm, 4): return .asStored(big ? .s32BE : .s32LE)
        case (.pcm, 5...7) where validBits <= 53: return .widenedToFloat64(bytesPerSample: bytesPerSample)
        case (.float, 4): return .asStored(big ? .f32BE : .f32LE)
        case (.float, 8): return .asStored(big ? .f64BE : .f64LE)
        default: return nil
        }
    }

    /// The raw sample format pushed for this format, or nil when there is none.
    public var rawSampleFormat: AudioFormat? {
        switch feedLayout {
        case .asStored(let format)?: format
        case .widenedToFloat64?: .f64LE
        case nil: nil
        }
    }

    /// Caps for the data chunk as it stands, e.g. `audio/x-raw, format=S16LE, layout=interleaved, rate=44100,
    /// channels=2, channel-mask=0x3`.
    ///
    /// Channels get GStreamer positions: the file's mask where it describes every channel in an order GStreamer
    /// can take as is, else the usual layout for up to 8 channels, else unpositioned (mask 0).
    public var rawCaps: Caps? {
        guard let format = rawSampleFormat else { return nil }
        return .rawAudio(
            format: format, rate: sampleRate, channels: channels, channelMask: channels > 1 ? gstChannelMask : nil)
    }

    /// The GStreamer channel mask (bit n = GstAudioChannelPosition n) for this format's channels.
    var gstChannelMask: UInt64 {
        if let mask = channelMask, mask.nonzeroBitCount == channels,
            let mapped = ChannelPositions.gstMask(fromWAV: mask)
        {
            return mapped
        }
        return ChannelPositions.defaultGstMask(channels: channels)
    }
}

extension WAVFormat {
    /// Whether the samples need a decoder in the pipeline (anything but PCM and IEEE float).
    public var needsDecoder: Bool { encoding == .compressed }

    /// Caps for compressed data, as GStreamer's RIFF code (gst-plugins-base riff-media.c,
    /// `gst_riff_create_audio_caps`) gives them for this format tag; nil for a tag it does not map.
    ///
    /// Like riff-media: rate and channels on every caps (but DTS and Siren, whose headers cannot be trusted for
    /// them), `block_align` for the block codecs, and the fmt extension's codec bytes as `codec_data`. Unlike it,
    /// an extensible file's compressed sub-format keeps rate and channels, and its `codec_data` is what follows the
    /// 22-byte extension (the codec's own bytes) rather than the extension itself.
    public var codecCaps: Caps? {
        guard encoding == .compressed, let rule = CodecCapsRule.byTag[effectiveTag],
            !rule.onlyAsSubFormat || subFormatTag != nil
        else { return nil }
        var caps = Caps(mediaType: rule.mediaType, fields: rule.fixedFields + rule.fields(self))
        if rule.withRateAndChannels {
            caps["rate"] = .int(Int64(sampleRate))
            caps["channels"] = .int(Int64(channels))
        }
        if let blockAlign = rule.blockAlign { caps["block_align"] = .int(Int64(blockAlign(self))) }
        if !extraData.isEmpty { caps["codec_data"] = .buffer(extraData) }
        return caps
    }

    /// Elements to decode this format with when they are installed, in launch order, where the best decoder does not
    /// always win decodebin's choice; nil: let `decodebin` choose.
    ///
    /// MPEG audio: mpg123 (the library libsndfile decodes MP3 with, gapless) ranks the same as libav's decoders,
    /// which decodebin then prefers by name; libav's output starts with the encoder delay.
    public var preferredDecoder: [String]? {
        switch effectiveTag {
        case 0x0050, 0x0055: ["mpegaudioparse", "mpg123audiodec"]
        default: nil
        }
    }
}
