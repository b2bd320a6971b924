// yt-gst — keeping what does not belong to a stream out of it: a verdict on every packet a network source delivers.
internal import CGStreamer

/// What a packet filter (`Element.filterPackets(onPad:_:)`) does with one buffer.
public enum PacketVerdict: Sendable, Equatable {
    /// Let it through as it is.
    case pass
    /// Drop it: nothing downstream sees it.
    case drop
    /// Let it through as if another RTP source had sent it: its SSRC (bytes 8-11) set to `ssrc`, and without the
    /// sender's address (rtpbin would take the same SSRC from another address for a collision and drop it).
    case passAsSource(ssrc: UInt32)
}

extension Element {
    /// Gives every buffer that leaves the pad of this name to `verdict`, whole, and passes, drops or rewrites it as
    /// told, from now on.
    ///
    /// - Returns: false when the element has no such pad.
    /// - Note: `verdict` runs on the streaming thread for every buffer: it must be quick and never block.
    /// The corresponding C function is `gst_pad_add_probe` with `GST_PAD_PROBE_TYPE_BUFFER`.
    @discardableResult
    public func filterPackets(
        onPad padName: String, _ verdict: @escaping @Sendable (UnsafeRawBufferPointer) -> PacketVerdict
    ) -> Bool {
        addProbe(onPad: padName, type: GST_PAD_PROBE_TYPE_BUFFER, context: verdict) { _, info, context in
            guard let info, let context, let buffer = gst_pad_probe_info_get_buffer(info) else {
                return GST_PAD_PROBE_OK
            }
            let verdict = ProbeContext<@Sendable (UnsafeRawBufferPointer) -> PacketVerdict>.value(at: context)
            var map = GstMapInfo()
            guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return GST_PAD_PROBE_DROP }
            let decision = verdict(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
            gst_buffer_unmap(buffer, &map)
            switch decision {
            case .pass:
                return GST_PAD_PROBE_OK
            case .drop:
                return GST_PAD_PROBE_DROP
            case .passAsSource(let ssrc):
                let writable = CGst_probe_writable_buffer(info)
                var bigEndian = ssrc.bigEndian
                _ = gst_buffer_fill(writable, 8, &bigEndian, 4)
                if let address = gst_buffer_get_net_address_meta(writable) {
                    _ = gst_buffer_remove_meta(
                        writable, UnsafeMutableRawPointer(address).assumingMemoryBound(to: GstMeta.self))
                }
                return GST_PAD_PROBE_OK
            }
        }
    }
}

/// The closure of one `filterPackets(onPad:_:)` probe, owned by the probe.
