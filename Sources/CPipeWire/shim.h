// yt-gst — C shim for PipeWire: libpipewire's functions found at run time (never linked, so yt-gst starts without
// it and loads it only when a PipeWire output opens), and SPA's header-only helpers Swift cannot call (variadic
// functions, macros).
#ifndef YT_GST_PIPEWIRE_SHIM_H
#define YT_GST_PIPEWIRE_SHIM_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>

/// The libpipewire functions a playback stream uses, each typed as its header declares it.
typedef struct {
    __typeof__(pw_init) *init;
    __typeof__(pw_thread_loop_new) *thread_loop_new;
    __typeof__(pw_thread_loop_get_loop) *thread_loop_get_loop;
    __typeof__(pw_thread_loop_start) *thread_loop_start;
    __typeof__(pw_thread_loop_stop) *thread_loop_stop;
    __typeof__(pw_thread_loop_destroy) *thread_loop_destroy;
    __typeof__(pw_thread_loop_lock) *thread_loop_lock;
    __typeof__(pw_thread_loop_unlock) *thread_loop_unlock;
    __typeof__(pw_thread_loop_signal) *thread_loop_signal;
    __typeof__(pw_thread_loop_timed_wait) *thread_loop_timed_wait;
    __typeof__(pw_properties_new) *properties_new;
    __typeof__(pw_properties_set) *properties_set;
    __typeof__(pw_stream_new_simple) *stream_new_simple;
    __typeof__(pw_stream_connect) *stream_connect;
    __typeof__(pw_stream_disconnect) *stream_disconnect;
    __typeof__(pw_stream_destroy) *stream_destroy;
    __typeof__(pw_stream_dequeue_buffer) *stream_dequeue_buffer;
    __typeof__(pw_stream_queue_buffer) *stream_queue_buffer;
    __typeof__(pw_stream_get_time_n) *stream_get_time_n;
    __typeof__(pw_stream_set_active) *stream_set_active;
    __typeof__(pw_stream_get_core) *stream_get_core;
    __typeof__(pw_proxy_destroy) *proxy_destroy;
} CPW_Library;

/// Fills `library` from libpipewire-0.3.so.0 (loaded now if it is not yet) and initialises PipeWire.
/// Returns NULL, or what went wrong (dlerror's text, or the missing symbol's name).
static inline const char *CPW_load(CPW_Library *library) {
    void *handle = dlopen("libpipewire-0.3.so.0", RTLD_NOW);
    if (handle == NULL) return dlerror();
#define CPW_SYMBOL(field, name) \
    if ((library->field = (__typeof__(library->field))dlsym(handle, #name)) == NULL) return #name;
    CPW_SYMBOL(init, pw_init)
    CPW_SYMBOL(thread_loop_new, pw_thread_loop_new)
    CPW_SYMBOL(thread_loop_get_loop, pw_thread_loop_get_loop)
    CPW_SYMBOL(thread_loop_start, pw_thread_loop_start)
    CPW_SYMBOL(thread_loop_stop, pw_thread_loop_stop)
    CPW_SYMBOL(thread_loop_destroy, pw_thread_loop_destroy)
    CPW_SYMBOL(thread_loop_lock, pw_thread_loop_lock)
    CPW_SYMBOL(thread_loop_unlock, pw_thread_loop_unlock)
    CPW_SYMBOL(thread_loop_signal, pw_thread_loop_signal)
    CPW_SYMBOL(thread_loop_timed_wait, pw_thread_loop_timed_wait)
    CPW_SYMBOL(properties_new, pw_properties_new)
    CPW_SYMBOL(properties_set, pw_properties_set)
    CPW_SYMBOL(stream_new_simple, pw_stream_new_simple)
    CPW_SYMBOL(stream_connect, pw_stream_connect)
    CPW_SYMBOL(stream_disconnect, pw_stream_disconnect)
    CPW_SYMBOL(stream_destroy, pw_stream_destroy)
    CPW_SYMBOL(stream_dequeue_buffer, pw_stream_dequeue_buffer)
    CPW_SYMBOL(stream_queue_buffer, pw_stream_queue_buffer)
    CPW_SYMBOL(stream_get_time_n, pw_stream_get_time_n)
    CPW_SYMBOL(stream_set_active, pw_stream_set_active)
    CPW_SYMBOL(stream_get_core, pw_stream_get_core)
    CPW_SYMBOL(proxy_destroy, pw_proxy_destroy)
#undef CPW_SYMBOL
    library->init(NULL, NULL);
    return NULL;
}

/// New, empty stream properties (pw_properties_new is variadic).
static inline struct pw_properties *CPW_properties(const CPW_Library *library) {
    return library->properties_new(NULL, NULL);
}

/// The EnumFormat parameter of raw interleaved audio, built into `buffer`: `positions` names each channel
/// (SPA_AUDIO_CHANNEL_*), or is NULL for channels with no position.
static inline const struct spa_pod *CPW_audio_format(uint8_t *buffer, uint32_t size, uint32_t format, uint32_t rate,
                                                     uint32_t channels, const uint32_t *positions) {
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, size);
    struct spa_audio_info_raw info = {.format = format, .rate = rate, .channels = channels};
    if (positions == NULL || channels > SPA_AUDIO_MAX_CHANNELS) {
        info.flags = SPA_AUDIO_FLAG_UNPOSITIONED;
    } else {
        for (uint32_t channel = 0; channel < channels; channel++) info.position[channel] = positions[channel];
    }
    return spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info);
}

/// The first data block of a buffer, and its chunk (what was written into it).
static inline struct spa_data *CPW_buffer_data(struct pw_buffer *buffer) {
    return buffer->buffer->n_datas > 0 ? &buffer->buffer->datas[0] : NULL;
}

/// Follows the state of one node, found by its node.name, on a connection's server (its registry, then the node's
/// info events), on the connection's loop thread. Lives at one address from `CPW_node_watch_start` to
/// `CPW_node_watch_stop` (PipeWire's listener lists point into it).
typedef struct {
    char name[256];
    __typeof__(pw_proxy_destroy) *proxy_destroy;
    struct pw_registry *registry;
    struct spa_hook registry_listener;
    struct pw_proxy *node;
    uint32_t node_id;
    struct spa_hook node_listener;
    /// The node's state (enum pw_node_state), or CPW_NODE_UNSEEN before it is found or after it went.
    int state;
} CPW_NodeWatch;

#define CPW_NODE_UNSEEN (-100)

static void CPW_node_watch_info(void *data, const struct pw_node_info *info) {
    CPW_NodeWatch *watch = (CPW_NodeWatch *)data;
    if (info->change_mask & PW_NODE_CHANGE_MASK_STATE) __atomic_store_n(&watch->state, (int)info->state, __ATOMIC_RELEASE);
}

static const struct pw_node_events CPW_node_watch_node_events = {
    .version = PW_VERSION_NODE_EVENTS,
    .info = CPW_node_watch_info,
};

static void CPW_node_watch_forget(CPW_NodeWatch *watch) {
    if (watch->node == NULL) return;
    spa_hook_remove(&watch->node_listener);
    watch->proxy_destroy(watch->node);
    watch->node = NULL;
    __atomic_store_n(&watch->state, CPW_NODE_UNSEEN, __ATOMIC_RELEASE);
}

static void CPW_node_watch_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                                  const struct spa_dict *props) {
    CPW_NodeWatch *watch = (CPW_NodeWatch *)data;
    if (watch->node != NULL || props == NULL || strcmp(type, PW_TYPE_INTERFACE_Node) != 0) return;
    const char *name = spa_dict_lookup(props, PW_KEY_NODE_NAME);
    if (name == NULL || strcmp(name, watch->name) != 0) return;
    watch->node = (struct pw_proxy *)pw_registry_bind(watch->registry, id, type, PW_VERSION_NODE, 0);
    if (watch->node == NULL) return;
    watch->node_id = id;
    pw_node_add_listener((struct pw_node *)watch->node, &watch->node_listener, &CPW_node_watch_node_events, watch);
}

static void CPW_node_watch_global_remove(void *data, uint32_t id) {
    CPW_NodeWatch *watch = (CPW_NodeWatch *)data;
    if (watch->node != NULL && id == watch->node_id) CPW_node_watch_forget(watch);
}

static const struct pw_registry_events CPW_node_watch_registry_events = {
    .version = PW_VERSION_REGISTRY_EVENTS,
    .global = CPW_node_watch_global,
    .global_remove = CPW_node_watch_global_remove,
};

/// Starts following the node named `name` on `core` (with the core's loop locked). FALSE when the registry could
/// not be asked.
static inline bool CPW_node_watch_start(CPW_NodeWatch *watch, const CPW_Library *library, struct pw_core *core,
                                        const char *name) {
    memset(watch, 0, sizeof(*watch));
    snprintf(watch->name, sizeof(watch->name), "%s", name);
    watch->proxy_destroy = library->proxy_destroy;
    watch->state = CPW_NODE_UNSEEN;
    watch->registry = pw_core_get_registry(core, PW_VERSION_REGISTRY, 0);
    if (watch->registry == NULL) return false;
    pw_registry_add_listener(watch->registry, &watch->registry_listener, &CPW_node_watch_registry_events, watch);
    return true;
}

/// Stops following (with the core's loop locked).
static inline void CPW_node_watch_stop(CPW_NodeWatch *watch) {
    CPW_node_watch_forget(watch);
    if (watch->registry == NULL) return;
    spa_hook_remove(&watch->registry_listener);
    watch->proxy_destroy((struct pw_proxy *)watch->registry);
    watch->registry = NULL;
}

/// The followed node's state (enum pw_node_state), or CPW_NODE_UNSEEN; from any thread.
static inline int CPW_node_watch_state(const CPW_NodeWatch *watch) {
    return __atomic_load_n(&watch->state, __ATOMIC_ACQUIRE);
}

#endif
