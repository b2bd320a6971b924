// yt-gst — a part of a running pipeline that fails and is replaced alone: a branch behind a tee (a network sink
// that loses its server), whose faults never stop the tee nor anything upstream of it.
internal import CGStreamer

extension Pipeline {
    /// Adds `description`, parsed as a bin named `name`, behind the tee `tee`, and starts it at the pipeline's state.
    ///
    /// The branch's flow errors stay in the branch: its sink pad answers the tee as if all went well, so when an
    /// element in it fails (its error still reaches the bus) the branch stops taking data and the rest of the
    /// pipeline plays on, undisturbed. Replace a failed branch with `removeBranch(named:)` and a new one.
    /// `configure` sets the new elements' properties (found with `element(named:)`) before the branch starts.
    ///
    /// - Throws: parse errors, as for `init(launch:)`; an error of `configure` (the branch is then removed).
    /// The corresponding C functions are `gst_parse_bin_from_description_full`, `gst_element_request_pad_simple`
    /// and `gst_pad_set_chain_function_full`.
    public func addBranch(
        named name: String, _ description: String, after tee: String,
        configure: (Pipeline) throws(GstError) -> Void
    ) throws(GstError) {
        var error: UnsafeMutablePointer<GError>?
        guard let bin = gst_parse_bin_from_description_full(description, 1, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        else { throw Pipeline.parseError(taking: error) }
        _ = gst_object_ref_sink(UnsafeMutableRawPointer(bin))  // floating → owned, before any early exit
        defer { gst_object_unref(UnsafeMutableRawPointer(bin)) }
        if let error { throw Pipeline.parseError(taking: error) }
        _ = gst_object_set_name(CGst_object(bin), name)
        let teeElement = try element(named: tee)
        guard let sink = gst_element_get_static_pad(bin, "sink") else {
            throw GstError(kind: .parse, message: "the branch \"\(name)\" has no free sink pad")
        }
        defer { gst_object_unref(UnsafeMutableRawPointer(sink)) }
        guard gst_bin_add(CGst_bin(raw), bin) != 0 else {
            throw GstError(kind: .parse, message: "the pipeline already has an element named \"\(name)\"")
        }
        do throws(GstError) {
            try configure(self)
        } catch {
            removeBranch(named: name)
            throw error
        }
        Pipeline.keepFlowErrors(in: sink)
        // Started before it is linked: a branch still in NULL would answer the tee "flushing".
        _ = gst_element_sync_state_with_parent(bin)
        guard let teePad = gst_element_request_pad_simple(teeElement.raw, "src_%u") else {
            removeBranch(named: name)
            throw GstError(kind: .parse, message: "\"\(tee)\" gave no pad for the branch \"\(name)\"")
        }
        defer { gst_object_unref(UnsafeMutableRawPointer(teePad)) }
        _ = gst_pad_link(teePad, sink)
    }

    /// Unlinks the branch `name` from its tee and removes it (its sockets and threads go with it); nothing when
    /// there is no such branch.
    ///
    /// The tee copes with a pad released while it pushes (it counts that push as not linked).
    /// The corresponding C functions are `gst_element_release_request_pad` and `gst_bin_remove`.
    public func removeBranch(named name: String) {
        guard let bin = gst_bin_get_by_name(CGst_bin(raw), name) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(bin)) }
        if let sink = gst_element_get_static_pad(bin, "sink") {
            defer { gst_object_unref(UnsafeMutableRawPointer(sink)) }
            if let teePad = gst_pad_get_peer(sink) {
                defer { gst_object_unref(UnsafeMutableRawPointer(teePad)) }
                if let tee = gst_pad_get_parent_element(teePad) {
                    gst_element_release_request_pad(tee, teePad)
                    gst_object_unref(UnsafeMutableRawPointer(tee))
                }
            }
        }
        _ = gst_element_set_state(bin, GST_STATE_NULL)
        _ = gst_bin_remove(CGst_bin(raw), bin)
    }

    /// Makes the branch's ghost sink pad pass its flow on as usual, but answer an error (a failed sink, a
    /// stopped queue) with OK: the tee would otherwise return it upstream and stop the whole pipeline.
    /// Flushing still goes back, so seeks unwind the branch as before.
    private static func keepFlowErrors(in pad: UnsafeMutablePointer<GstPad>) {
        gst_pad_set_chain_function_full(
            pad, { pad, parent, buffer in contained(gst_proxy_pad_chain_default(pad, parent, buffer)) }, nil, nil)
        gst_pad_set_chain_list_function_full(
            pad, { pad, parent, list in contained(gst_proxy_pad_chain_list_default(pad, parent, list)) }, nil, nil)
    }
}

/// OK for an error of a branch (anything past end of stream: not negotiated, error, custom errors).
private func contained(_ result: GstFlowReturn) -> GstFlowReturn {
    result.rawValue < GST_FLOW_EOS.rawValue ? GST_FLOW_OK : result
}
