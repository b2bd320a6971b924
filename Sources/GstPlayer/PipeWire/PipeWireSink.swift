// yt-gst — `ytpipewiresink`: an audio sink with a ring buffer over a PipeWire stream, so that its output can follow
// a clock sample by sample like pulsesink's and alsasink's.
internal import CGStreamer
internal import CPipeWire

/// The element `ytpipewiresink`, registered with GStreamer by `Gst.initialize()`: a `GstAudioSink` whose device is
/// a `PipeWireOutput`. Being an audio base sink, it has the ring buffer, the clock and the custom slaving that
/// `Element.follow(_:)` hands to an `OutputAligner`; `pipewiresink` (PipeWire's own) has none of them.
///
/// Property: `target-object`, the sink to play to (its node.name or object serial, as `pw-cli ls Node` shows;
/// default: PipeWire's default sink), as `pipewiresink` names it.
enum PipeWireSink {
    static let factoryName = "ytpipewiresink"

    /// Registers the element type and its factory (once per process, from `Gst.initialize()`).
    static func register() {
        var info = GTypeInfo()
        info.class_size = guint16(MemoryLayout<GstAudioSinkClass>.size)
        info.class_init = { gClass, _ in PipeWireSink.initialize(class: gClass) }
        info.instance_size = guint16(MemoryLayout<GstAudioSink>.size)
        info.instance_init = { instance, _ in
            guard let instance else { return }
            g_object_set_qdata_full(
                UnsafeMutableRawPointer(instance).assumingMemoryBound(to: GObject.self), PipeWireSink.outputKey,
                Unmanaged.passRetained(PipeWireOutput()).toOpaque(),
                { Unmanaged<PipeWireOutput>.fromOpaque($0!).release() })
        }
        let type = g_type_register_static(gst_audio_sink_get_type(), "YtGstPipeWireSink", &info, GTypeFlags(0))
        _ = gst_element_register(nil, factoryName, guint(GST_RANK_NONE.rawValue), type)
    }

    /// Where each instance keeps its `PipeWireOutput` (object data, released with the instance).
    private static let outputKey = g_quark_from_string("yt-gst-pipewire-output")

    private static func output(of sink: UnsafeMutableRawPointer?) -> PipeWireOutput {
        let data = g_object_get_qdata(sink!.assumingMemoryBound(to: GObject.self), outputKey)!
        return Unmanaged<PipeWireOutput>.fromOpaque(data).takeUnretainedValue()
    }

    private static let targetProperty: guint = 1

    private static func initialize(class gClass: gpointer?) {
        guard let gClass else { return }
        let objectClass = gClass.assumingMemoryBound(to: GObjectClass.self)
        objectClass.pointee.set_property = { object, id, value, _ in
            guard id == PipeWireSink.targetProperty, let value else { return }
            PipeWireSink.output(of: object).target = g_value_get_string(value).map { String(cString: $0) }
        }
        objectClass.pointee.get_property = { object, id, value, _ in
            guard id == PipeWireSink.targetProperty, let value else { return }
            g_value_set_string(value, PipeWireSink.output(of: object).target)
        }
        g_object_class_install_property(
            objectClass, targetProperty,
            g_param_spec_string(
                "target-object", "Target object",
                "The sink to play to: its node.name or object serial (default: PipeWire's default sink)", nil,
                G_PARAM_READWRITE))

        let elementClass = gClass.assumingMemoryBound(to: GstElementClass.self)
        gst_element_class_set_metadata(
            elementClass, "PipeWire audio sink (yt-gst)", "Sink/Audio",
            "Plays to PipeWire through a ring buffer whose clock is the stream's own timing", "yt-gst")
        let caps = gst_caps_from_string(
            "audio/x-raw, format=(string){ F32LE, S32LE, S24LE, S16LE }, layout=(string)interleaved, "
                + "rate=(int)[ 1, 768000 ], channels=(int)[ 1, 64 ]")
        gst_element_class_add_pad_template(
            elementClass, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps))
        gst_caps_unref(caps)

        let sinkClass = gClass.assumingMemoryBound(to: GstAudioSinkClass.self)
        sinkClass.pointee.open = { sink in
            PipeWireSink.reporting(sink) { () throws(PipeWireOutput.Failure) in try PipeWireSink.output(of: sink).open()
            }
        }
        sinkClass.pointee.prepare = { sink, spec in
            PipeWireSink.reporting(sink) { () throws(PipeWireOutput.Failure) in
                guard let spec else { return }
                let info = spec.pointee.info
                guard let format = PipeWireSink.format(of: info) else {
                    throw PipeWireOutput.Failure(message: "PipeWire output cannot play this format", debug: "")
                }
                let periodFrames = Int(spec.pointee.segsize) / Int(info.bpf)
                try PipeWireSink.output(of: sink).connect(format, periodFrames: max(periodFrames, 1))
            }
        }
        sinkClass.pointee.unprepare = { sink in
            PipeWireSink.output(of: sink).disconnect()
            return 1
        }
        sinkClass.pointee.close = { sink in
            PipeWireSink.output(of: sink).close()
            return 1
        }
        sinkClass.pointee.write = { sink, data, length in
            guard let data else { return 0 }
            let bytes = UnsafeRawBufferPointer(start: data, count: Int(length))
            guard let written = PipeWireSink.output(of: sink).write(bytes) else {
                PipeWireSink.post(
                    PipeWireOutput.Failure(message: "the PipeWire stream failed", debug: ""), from: sink,
                    code: GST_RESOURCE_ERROR_WRITE)
                return -1
            }
            return gint(written)
        }
        sinkClass.pointee.delay = { sink in guint(clamping: PipeWireSink.output(of: sink).delay()) }
        sinkClass.pointee.reset = { sink in PipeWireSink.output(of: sink).reset() }
        CGst_audio_sink_class_set_clear_all(sinkClass) { sink in PipeWireSink.output(of: sink).reset() }
        sinkClass.pointee.pause = { sink in PipeWireSink.output(of: sink).setPaused(true) }
        sinkClass.pointee.resume = { sink in PipeWireSink.output(of: sink).setPaused(false) }
    }

    /// Runs a vmethod's work: TRUE, or FALSE after posting its failure as the element's error.
    private static func reporting(
        _ sink: UnsafeMutablePointer<GstAudioSink>?, _ work: () throws(PipeWireOutput.Failure) -> Void
    ) -> gboolean {
        do {
            try work()
            return 1
        } catch {
            post(error, from: sink, code: GST_RESOURCE_ERROR_OPEN_WRITE)
            return 0
        }
    }

    private static func post(
        _ failure: PipeWireOutput.Failure, from sink: UnsafeMutablePointer<GstAudioSink>?, code: GstResourceError
    ) {
        guard let sink else { return }
        gst_element_message_full(
            UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstElement.self), GST_MESSAGE_ERROR,
            gst_resource_error_quark(), gint(code.rawValue), g_strdup(failure.message),
            failure.debug.isEmpty ? nil : g_strdup(failure.debug), #fileID, #function, #line)
    }

    /// The stream format of negotiated caps, nil for one the pad template does not allow.
    private static func format(of info: GstAudioInfo) -> PipeWireOutput.Format? {
        let formats: [GstAudioFormat: UInt32] = [
            GST_AUDIO_FORMAT_F32LE: SPA_AUDIO_FORMAT_F32_LE.rawValue,
            GST_AUDIO_FORMAT_S32LE: SPA_AUDIO_FORMAT_S32_LE.rawValue,
            GST_AUDIO_FORMAT_S24LE: SPA_AUDIO_FORMAT_S24_LE.rawValue,
            GST_AUDIO_FORMAT_S16LE: SPA_AUDIO_FORMAT_S16_LE.rawValue,
        ]
        guard let finfo = info.finfo, let spaFormat = formats[finfo.pointee.format] else { return nil }
        let channels = Int(info.channels)
        let positions = withUnsafeBytes(of: info.position) { raw in
            Array(raw.bindMemory(to: GstAudioChannelPosition.self).prefix(channels))
        }
        let mapped = positions.compactMap { channelPositions[$0] }
        return PipeWireOutput.Format(
            spaFormat: spaFormat, rate: Int(info.rate), channels: channels, frameSize: Int(info.bpf),
            positions: mapped.count == channels ? mapped : nil)
    }

    /// GStreamer's channel positions and PipeWire's names for them.
    private static let channelPositions: [GstAudioChannelPosition: UInt32] = [
        GST_AUDIO_CHANNEL_POSITION_MONO: SPA_AUDIO_CHANNEL_MONO.rawValue,
        GST_AUDIO_CHANNEL_POSITION_FRONT_LEFT: SPA_AUDIO_CHANNEL_FL.rawValue,
        GST_AUDIO_CHANNEL_POSITION_FRONT_RIGHT: SPA_AUDIO_CHANNEL_FR.rawValue,
        GST_AUDIO_CHANNEL_POSITION_FRONT_CENTER: SPA_AUDIO_CHANNEL_FC.rawValue,
        GST_AUDIO_CHANNEL_POSITION_LFE1: SPA_AUDIO_CHANNEL_LFE.rawValue,
        GST_AUDIO_CHANNEL_POSITION_REAR_LEFT: SPA_AUDIO_CHANNEL_RL.rawValue,
        GST_AUDIO_CHANNEL_POSITION_REAR_RIGHT: SPA_AUDIO_CHANNEL_RR.rawValue,
        GST_AUDIO_CHANNEL_POSITION_REAR_CENTER: SPA_AUDIO_CHANNEL_RC.rawValue,
        GST_AUDIO_CHANNEL_POSITION_SIDE_LEFT: SPA_AUDIO_CHANNEL_SL.rawValue,
        GST_AUDIO_CHANNEL_POSITION_SIDE_RIGHT: SPA_AUDIO_CHANNEL_SR.rawValue,
        GST_AUDIO_CHANNEL_POSITION_FRONT_LEFT_OF_CENTER: SPA_AUDIO_CHANNEL_FLC.rawValue,
        GST_AUDIO_CHANNEL_POSITION_FRONT_RIGHT_OF_CENTER: SPA_AUDIO_CHANNEL_FRC.rawValue,
    ]
}
