// yt-gst — C shim: only what Swift cannot import from GStreamer's headers (macros, casts, type getters).
#ifndef YT_GST_SHIM_H
#define YT_GST_SHIM_H

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/base/gstadapter.h>
#include <gst/audio/audio.h>
#include <gst/audio/streamvolume.h>
#include <gst/net/net.h>
#include <gst/controller/controller.h>
#include <glib-unix.h>
#include <gio/gio.h>
#include <sys/syscall.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

/// A kernel clock in ns, read by the system call (Swift cannot call the variadic `syscall`): see KernelClock.swift.
static inline int64_t CGst_kernel_clock_ns(clockid_t clock) {
    struct timespec now;
    syscall(SYS_clock_gettime, clock, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static inline GstClockTime CGst_second(void) { return GST_SECOND; }
static inline GstClockTime CGst_clock_time_none(void) { return GST_CLOCK_TIME_NONE; }

static inline GstBin *CGst_bin(GstElement *element) { return GST_BIN(element); }
static inline GstAppSrc *CGst_app_src(GstElement *element) { return GST_APP_SRC(element); }
static inline gboolean CGst_is_app_src(GstElement *element) { return GST_IS_APP_SRC(element); }
static inline GstAppSink *CGst_app_sink(GstElement *element) { return GST_APP_SINK(element); }
static inline gboolean CGst_is_app_sink(GstElement *element) { return GST_IS_APP_SINK(element); }
static inline gboolean CGst_is_bin(GstElement *element) { return GST_IS_BIN(element); }
static inline GstObject *CGst_object(gpointer object) { return GST_OBJECT(object); }
static inline GObject *CGst_gobject(gpointer object) { return G_OBJECT(object); }
static inline GObjectClass *CGst_gobject_class_of(gpointer object) { return G_OBJECT_GET_CLASS(object); }
static inline gboolean CGst_is_stream_volume(GstElement *element) { return GST_IS_STREAM_VOLUME(element); }
static inline GType CGst_stream_volume_type(void) { return GST_TYPE_STREAM_VOLUME; }
static inline const char *CGst_object_type_name(gpointer object) { return G_OBJECT_TYPE_NAME(object); }

static inline GstClockTime CGst_buffer_pts(GstBuffer *buffer) { return GST_BUFFER_PTS(buffer); }
static inline GstClockTime CGst_buffer_duration(GstBuffer *buffer) { return GST_BUFFER_DURATION(buffer); }
static inline guint64 CGst_buffer_offset(GstBuffer *buffer) { return GST_BUFFER_OFFSET(buffer); }
static inline guint64 CGst_buffer_offset_end(GstBuffer *buffer) { return GST_BUFFER_OFFSET_END(buffer); }
static inline void CGst_buffer_set_timing(GstBuffer *buffer, GstClockTime pts, GstClockTime duration,
                                          guint64 offset, guint64 offset_end) {
    GST_BUFFER_PTS(buffer) = pts;
    GST_BUFFER_DURATION(buffer) = duration;
    GST_BUFFER_OFFSET(buffer) = offset;
    GST_BUFFER_OFFSET_END(buffer) = offset_end;
}

/// The message's source, as a path string (transfer full), or NULL.
static inline gchar *CGst_message_source_path(GstMessage *message) {
    return GST_MESSAGE_SRC(message) ? gst_object_get_path_string(GST_MESSAGE_SRC(message)) : NULL;
}
static inline gboolean CGst_message_source_is(GstMessage *message, GstElement *element) {
    return GST_MESSAGE_SRC(message) == GST_OBJECT(element);
}

/// The string in a GValue that holds one, else NULL (G_VALUE_HOLDS_STRING is a macro).
static inline const gchar *CGst_value_string(const GValue *value) {
    return G_VALUE_HOLDS_STRING(value) ? g_value_get_string(value) : NULL;
}

/// G_TYPE_STRING is a function-like macro (network: text fields of application messages).
static inline GType CGst_type_string(void) { return G_TYPE_STRING; }
/// G_TYPE_BOOLEAN likewise (a sink's "sync" property).
static inline GType CGst_type_boolean(void) { return G_TYPE_BOOLEAN; }

/// The fundamental GTypes, function-like macros all (typed fields of structures, see Structure.Value).
static inline GType CGst_type_int(void) { return G_TYPE_INT; }
static inline GType CGst_type_uint(void) { return G_TYPE_UINT; }
static inline GType CGst_type_long(void) { return G_TYPE_LONG; }
static inline GType CGst_type_ulong(void) { return G_TYPE_ULONG; }
static inline GType CGst_type_int64(void) { return G_TYPE_INT64; }
static inline GType CGst_type_uint64(void) { return G_TYPE_UINT64; }
static inline GType CGst_type_enum(void) { return G_TYPE_ENUM; }
static inline GType CGst_type_flags(void) { return G_TYPE_FLAGS; }
static inline GType CGst_type_float(void) { return G_TYPE_FLOAT; }
static inline GType CGst_type_double(void) { return G_TYPE_DOUBLE; }
/// G_TYPE_VALUE_ARRAY (the level element's rms/peak lists); its getter function is deprecated.
static inline GType CGst_type_value_array(void) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    return G_TYPE_VALUE_ARRAY;
    G_GNUC_END_IGNORE_DEPRECATIONS
}


/// Clocks: the casts and checks are macros (network clocks, see Clock.swift).
static inline GstClock *CGst_clock(gpointer object) { return GST_CLOCK(object); }
static inline gboolean CGst_is_audio_base_sink(GstElement *element) { return GST_IS_AUDIO_BASE_SINK(element); }
static inline GstAudioBaseSink *CGst_audio_base_sink(GstElement *element) { return GST_AUDIO_BASE_SINK(element); }
/// The rate the sink's ring buffer plays at, 0 before it is negotiated (a field: no getter exists).
static inline gint CGst_audio_base_sink_rate(GstAudioBaseSink *sink) {
    return sink->ringbuffer ? GST_AUDIO_INFO_RATE(&sink->ringbuffer->spec.info) : 0;
}
/// Starts an audio sink's ring buffer now, where the sink has opened its device (PAUSED or later): its device plays
/// silence until samples come, and its clock runs. GstAudioBaseSink starts it itself only with the first sample it
/// renders in PLAYING (it allows the start then: `may_start`). Whether it runs.
static inline gboolean CGst_audio_base_sink_start_ring_buffer(GstAudioBaseSink *sink) {
    GST_OBJECT_LOCK(sink);
    GstAudioRingBuffer *ring = sink->ringbuffer ? gst_object_ref(sink->ringbuffer) : NULL;
    GST_OBJECT_UNLOCK(sink);
    if (ring == NULL) return FALSE;
    gboolean started = FALSE;
    if (gst_audio_ring_buffer_is_acquired(ring)) {
        gst_audio_ring_buffer_may_start(ring, TRUE);
        started = gst_audio_ring_buffer_start(ring);
    }
    gst_object_unref(ring);
    return started;
}
/// How much earlier than its time (ns, from 0 to one sample) an audio sink slaved to another clock places a buffer
/// of presentation time `pts` that it renders now. Why: its render (gst_audio_base_sink_render, 1.22) places a
/// buffer where its start falls in the ring buffer, and that is rounded down to a whole sample: the running time,
/// plus the sync offset (latency + ts-offset - render-delay) and the base time, taken through the device clock's
/// calibration (clock_convert_external), less that clock's time offset, scaled to samples; the following buffers
/// are kept contiguous with it. The device clock, which its slaving compares with the pipeline's, does not show
/// that. Mirrors that arithmetic for the calibration as it is now; 0 where there is nothing to place.
static inline gdouble CGst_audio_base_sink_placement_lead(GstAudioBaseSink *sink, GstClockTime pts) {
    GstBaseSink *base = GST_BASE_SINK(sink);
    gint rate = CGst_audio_base_sink_rate(sink);
    if (rate <= 0 || sink->provided_clock == NULL || !GST_CLOCK_TIME_IS_VALID(pts)) return 0;
    GstClockTime start = gst_segment_to_running_time(&base->segment, GST_FORMAT_TIME, pts);
    if (!GST_CLOCK_TIME_IS_VALID(start)) return 0;
    GstClockTimeDiff sync_offset = gst_base_sink_get_ts_offset(base) + (GstClockTimeDiff)gst_base_sink_get_latency(base)
        - (GstClockTimeDiff)gst_base_sink_get_render_delay(base);
    start = (GstClockTime)MAX((GstClockTimeDiff)start + sync_offset, 0) + gst_element_get_base_time(GST_ELEMENT(sink));
    GstClockTime internal, external, num, denom;
    gst_clock_get_calibration(sink->provided_clock, &internal, &external, &num, &denom);
    if (num == 0 || denom == 0) num = denom = 1;
    if (start >= external) {
        start = internal + gst_util_uint64_scale(start - external, denom, num);
    } else {
        GstClockTime before = gst_util_uint64_scale(external - start, denom, num);
        start = internal > before ? internal - before : 0;
    }
    GstClockTimeDiff time_offset = GST_AUDIO_CLOCK_CAST(sink->provided_clock)->time_offset;
    if (time_offset != 0) start = start > (GstClockTime)time_offset ? start - time_offset : 0;
    /* start * rate / GST_SECOND rounded down leaves this much of a sample: (start mod 1 s) * rate mod 1 s. */
    return (gdouble)((start % GST_SECOND) * (guint64)rate % GST_SECOND) / rate;
}
/// Sets an audio sink subclass's `clear_all` (what a flush calls) in an extension of its own. Why not through
/// `klass->extension` as it is: GstAudioSink sets that pointer once, in its own class_init, and every subclass's copy
/// points at GstAudioSink's own extension, so a `clear_all` set there was every audio sink's: alsasink's flushes
/// called ytpipewiresink's, and the receiver crashed. Each class has its own copy of the class private data.
static inline void CGst_audio_sink_class_set_clear_all(GstAudioSinkClass *klass, void (*clear_all)(GstAudioSink *)) {
    klass->extension = G_TYPE_CLASS_GET_PRIVATE(klass, GST_TYPE_AUDIO_SINK, GstAudioSinkClassExtension);
    klass->extension->clear_all = clear_all;
}
/// Replaces the buffer a probe sees with a writable one (the probe's data field is a macro).
static inline GstBuffer *CGst_probe_writable_buffer(GstPadProbeInfo *info) {
    GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
    return buffer;
}
/// When the first frame of a buffer at a pad is due on the pipeline clock (ns: the element's base time + the
/// buffer's running time in the pad's segment; the pipeline's latency not included), or -1 where not known.
static inline gint64 CGst_pad_buffer_clock_time(GstPad *pad, GstBuffer *buffer) {
    GstEvent *event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
    if (event == NULL) return -1;
    const GstSegment *segment = NULL;
    gst_event_parse_segment(event, &segment);
    guint64 running = gst_segment_to_running_time(segment, GST_FORMAT_TIME, GST_BUFFER_PTS(buffer));
    gst_event_unref(event);
    GstElement *element = gst_pad_get_parent_element(pad);
    if (element == NULL || running == GST_CLOCK_TIME_NONE) {
        if (element != NULL) gst_object_unref(element);
        return -1;
    }
    GstClockTime base = gst_element_get_base_time(element);
    gst_object_unref(element);
    return (gint64)(base + running);
}
/// Replaces the buffer a probe sees with `buffer` (transfer full).
static inline void CGst_probe_replace_buffer(GstPadProbeInfo *info, GstBuffer *buffer) {
    gst_buffer_unref(GST_PAD_PROBE_INFO_BUFFER(info));
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
}
/// Replaces the audio buffer a probe sees with one that starts `frames` frames later (frames > 0: its first frames
/// dropped) or earlier (frames < 0: that many frames put before it, silence, or copies of its first frame when
/// `repeat_first`); FALSE, leaving it, when the drop would take all of it.
static inline gboolean CGst_probe_shift_audio(GstPadProbeInfo *info, const GstAudioInfo *audio, gint64 frames,
                                              gboolean repeat_first) {
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    gsize size = gst_buffer_get_size(buffer), bpf = (gsize)GST_AUDIO_INFO_BPF(audio);
    gint64 count = (gint64)(size / bpf);
    if (frames >= count) return FALSE;
    GstBuffer *shifted;
    if (frames >= 0) {
        shifted = gst_buffer_copy_region(buffer, GST_BUFFER_COPY_ALL, (gsize)frames * bpf,
                                         (gsize)(count - frames) * bpf);
    } else {
        gsize added = (gsize)(-frames) * bpf;
        shifted = gst_buffer_new_allocate(NULL, added + size, NULL);
        gst_buffer_copy_into(shifted, buffer, GST_BUFFER_COPY_METADATA, 0, -1);
        GstMapInfo map;
        gst_buffer_map(shifted, &map, GST_MAP_WRITE);
        gst_buffer_extract(buffer, 0, map.data + added, size);
        if (repeat_first && count > 0) {
            for (gsize at = 0; at < added; at += bpf) memcpy(map.data + at, map.data + added, bpf);
        } else {
            gst_audio_format_info_fill_silence(audio->finfo, map.data, added);
        }
        gst_buffer_unmap(shifted, &map);
    }
    gst_buffer_unref(buffer);
    GST_PAD_PROBE_INFO_DATA(info) = shifted;
    return TRUE;
}
/// The buffer pool the sink behind `pad` proposes for `caps` (an allocation query), with a reference; NULL when it
/// proposes none.
static inline GstBufferPool *CGst_pad_proposed_pool(GstPad *pad, GstCaps *caps) {
    GstQuery *query = gst_query_new_allocation(caps, TRUE);
    GstBufferPool *pool = NULL;
    if (gst_pad_query(pad, query) && gst_query_get_n_allocation_pools(query) > 0)
        gst_query_parse_nth_allocation_pool(query, 0, &pool, NULL, NULL, NULL);
    gst_query_unref(query);
    return pool;
}
/// At a probe, once its pad answered an ALLOCATION query: takes the buffer pools out of the answer (upstream then
/// allocates buffers of its own); other queries, and the query on its way in, are left as they are.
static inline void CGst_probe_strip_allocation_pools(GstPadProbeInfo *info) {
    GstPadProbeType type = GST_PAD_PROBE_INFO_TYPE(info);
    if (!(type & GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM) || !(type & GST_PAD_PROBE_TYPE_PULL)) return;
    GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
    if (GST_QUERY_TYPE(query) != GST_QUERY_ALLOCATION) return;
    while (gst_query_get_n_allocation_pools(query) > 0) gst_query_remove_nth_allocation_pool(query, 0);
}
/// A buffer of `pool` if one is free now, else NULL: never waits (an inactive pool has none).
static inline GstBuffer *CGst_pool_try_acquire(GstBufferPool *pool) {
    GstBufferPoolAcquireParams params = {.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT};
    GstBuffer *buffer = NULL;
    if (!gst_buffer_pool_is_active(pool) || gst_buffer_pool_acquire_buffer(pool, &buffer, &params) != GST_FLOW_OK)
        return NULL;
    return buffer;
}
/// Fills `target` (a pool's buffer, writable) with `source`'s bytes, flags and timestamps; FALSE, leaving its size,
/// when they do not fit.
static inline gboolean CGst_buffer_fill_from(GstBuffer *target, GstBuffer *source) {
    gsize size = gst_buffer_get_size(source);
    GstMapInfo map;
    if (!gst_buffer_map(target, &map, GST_MAP_WRITE)) return FALSE;
    gboolean fits = size <= map.maxsize;
    if (fits) gst_buffer_extract(source, 0, map.data, size);
    gst_buffer_unmap(target, &map);
    if (!fits) return FALSE;
    gst_buffer_resize(target, 0, (gssize)size);
    gst_buffer_copy_into(target, source, (GstBufferCopyFlags)(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS), 0,
                         (gsize)-1);
    return TRUE;
}
/// A new buffer of `frames` frames of silence in `audio`'s format.
static inline GstBuffer *CGst_audio_silence(const GstAudioInfo *audio, gsize frames) {
    gsize size = frames * (gsize)GST_AUDIO_INFO_BPF(audio);
    GstBuffer *buffer = gst_buffer_new_allocate(NULL, size, NULL);
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    gst_audio_format_info_fill_silence(audio->finfo, map.data, size);
    gst_buffer_unmap(buffer, &map);
    return buffer;
}
static inline void CGst_buffer_set_pts(GstBuffer *buffer, GstClockTime pts) { GST_BUFFER_PTS(buffer) = pts; }
static inline void CGst_buffer_set_dts(GstBuffer *buffer, GstClockTime dts) { GST_BUFFER_DTS(buffer) = dts; }
static inline void CGst_buffer_set_duration(GstBuffer *buffer, GstClockTime duration) {
    GST_BUFFER_DURATION(buffer) = duration;
}
static inline GstAudioClippingMeta *CGst_buffer_audio_clipping_meta(GstBuffer *buffer) {
    return gst_buffer_get_audio_clipping_meta(buffer);
}
/// multiudpsink's "add" action signal (g_signal_emit_by_name is variadic).
static inline void CGst_multiudpsink_add(GstElement *sink, const gchar *host, gint port) {
    g_signal_emit_by_name(sink, "add", host, port);
}
/// The sender's address of a buffer received from the network ("10.0.0.1"), transfer full, or NULL.
static inline gchar *CGst_inet_address_string(GSocketAddress *address) {
    if (address == NULL || !G_IS_INET_SOCKET_ADDRESS(address)) return NULL;
    return g_inet_address_to_string(g_inet_socket_address_get_address(G_INET_SOCKET_ADDRESS(address)));
}

static inline gchar *CGst_buffer_source_address(GstBuffer *buffer) {
    GstNetAddressMeta *meta = gst_buffer_get_net_address_meta(buffer);
    return meta == NULL ? NULL : CGst_inet_address_string(meta->addr);
}

/// The controller's casts (a volume's gain ramp, see VolumeRamp.swift).
static inline GstTimedValueControlSource *CGst_timed_value_control_source(gpointer object) {
    return GST_TIMED_VALUE_CONTROL_SOURCE(object);
}
static inline GstControlSource *CGst_control_source(gpointer object) { return GST_CONTROL_SOURCE(object); }

/// GVariant's type strings are cast with a macro (D-Bus values, see DBusValue.swift).
static inline const GVariantType *CGst_variant_type(const gchar *type) { return G_VARIANT_TYPE(type); }
/// G_DBUS_ERROR is a macro for the domain's quark.
static inline GQuark CGst_dbus_error_quark(void) { return G_DBUS_ERROR; }

#endif
