import CallGateProtocol

extension SessionRoom {
    /// Sets a member's mute flags (nil keeps a flag) and records the change, keeping the newest
    /// `kept` changes. Returns the member as they are now.
    func setMuted(_ member: SessionMember, audio: Bool?, video: Bool?, at now: Int64, keeping kept: Int) -> SessionMember {
        var member = member
        member.audioMuted = audio ?? member.audioMuted
        member.videoMuted = video ?? member.videoMuted
        update(member)
        if history.muteChanges.count >= kept {
            history.muteChanges.removeFirst(history.muteChanges.count - kept + 1)
        }
        history.muteChanges.append(MuteChange(
            at: now, uid: member.user.uid, audioMuted: member.audioMuted, videoMuted: member.videoMuted))
        return member
    }

    /// Starts or stops the recording and records it; callers check it is not already so.
    func setRecording(_ on: Bool, at now: Int64) {
        recording = on
        if on {
            history.startRecording(at: now)
        } else {
            history.stopRecording(at: now)
        }
    }

    /// Makes the session a video call, asked by `uid`, and records it.
    func switchToVideo(by uid: String, at now: Int64) {
        callType = .video
        history.callType = .video
        history.videoSwitches.append(VideoSwitch(at: now, uid: uid))
    }
}
