// yt-gst — WAV speaker positions mapped to GStreamer's.

/// WAV speaker positions (dwChannelMask bits) and their GStreamer counterparts.
package enum ChannelPositions {
    /// GstAudioChannelPosition for WAV mask bits 0...17 (FL FR FC LFE BL BR FLC FRC BC SL SR TC TFL TFC TFR TBL TBC TBR).
    private static let gstPosition: [Int] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 15, 12, 14, 13, 16, 20, 17]

    /// The GStreamer mask for a WAV mask, or nil when a bit has no GStreamer position or the channels would
    /// come in a different order in GStreamer (interleaving follows ascending positions there).
    package static func gstMask(fromWAV mask: UInt32) -> UInt64? {
        var result: UInt64 = 0
        var last = -1
        for bit in 0..<32 where mask & (1 << UInt32(bit)) != 0 {
            guard bit < gstPosition.count, gstPosition[bit] > last else { return nil }
            last = gstPosition[bit]
            result |= 1 << UInt64(last)
        }
        return result
    }

    /// The layout players assume when a file gives no mask: stereo, 3.0, quad, 5.0, 5.1, 6.1, 7.1; unpositioned
    /// (0) beyond 8 channels.
    package static func defaultGstMask(channels: Int) -> UInt64 {
        defaultWAVMask(channels: channels).flatMap(gstMask(fromWAV:)) ?? 0
    }

    /// The WAV mask of the usual layout for `channels` (mono is front centre); nil beyond 8 channels.
    package static func defaultWAVMask(channels: Int) -> UInt32? {
        switch channels {
        case 1: 0x4
        case 2: 0x3
        case 3: 0x7
        case 4: 0x33
        case 5: 0x37
        case 6: 0x3F
        case 7: 0x70F
        case 8: 0x63F
        default: nil
        }
    }

    /// The WAV mask for a GStreamer mask, or nil when a position has no WAV bit or the channels would come in a
    /// different order in the WAV (the writer's side of `gstMask(fromWAV:)`).
    package static func wavMask(fromGst mask: UInt64) -> UInt32? {
        var result: UInt32 = 0
        for position in 0..<64 where mask & (1 << UInt64(position)) != 0 {
            guard let bit = gstPosition.firstIndex(of: position) else { return nil }
            result |= 1 << UInt32(bit)
        }
        return gstMask(fromWAV: result) == mask ? result : nil
    }
}
