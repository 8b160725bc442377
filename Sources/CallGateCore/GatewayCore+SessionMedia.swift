import CallGateProtocol

extension GatewayCore {
    /// Sets the mute flags of `connection`'s user in a session (per user, not per device); an
    /// absent flag keeps its value. Every device of every participant except `connection` gets
    /// `onUserMuted {sessionId, user, audioMuted, videoMuted}` with the flags now.
    ///
    /// Only a device that joined the session may do this (`ERR_NOT_PARTICIPANT`); a malformed id
    /// gets `ERR_INVALID_SESSION_ID`, an unknown one `ERR_CALL_NOT_FOUND`. Service thread only.
    public func setMuted(_ params: SetMutedParams, from connection: ConnectionID) -> SessionOutcome {
        SessionOutcome.attempt { () throws(CoreError) in
            let (room, member) = try joinedRoom(params.sessionId, from: connection)
            let muted = room.setMuted(
                member, audio: params.audioMuted, video: params.videoMuted, at: nowSeconds,
                keeping: configuration.maxMuteChangesKept)
            return tell(room, .userMuted(
                sessionId: room.id, user: muted.user, audioMuted: muted.audioMuted, videoMuted: muted.videoMuted),
                except: connection)
        }
    }

    /// Starts (`on` true) or stops the recording of a session. Starting a running recording or
    /// stopping when none runs: `ERR_BAD_REQUEST`. Every device of every participant except
    /// `connection` gets `onRecordingToggled {sessionId, recordingStarted, user}`. The history
    /// keeps each recording with its start, end and duration; a session has at most
    /// `maxRecordingsPerSession` (`ERR_TOO_MANY_RECORDINGS`). Same access rules as `setMuted`.
    /// Service thread only.
    public func setRecording(sessionId: String, on: Bool, from connection: ConnectionID) -> SessionOutcome {
        SessionOutcome.attempt { () throws(CoreError) in
            let (room, member) = try joinedRoom(sessionId, from: connection)
            guard room.recording != on else {
                throw .badRequest(on ? "the session is already being recorded" : "the session is not being recorded")
            }
            if on, room.history.recordings.count >= configuration.maxRecordingsPerSession {
                throw .tooManyRecordings(configuration.maxRecordingsPerSession)
            }
            room.setRecording(on, at: nowSeconds)
            noteLogChange(room)
            return tell(room, .recordingToggled(sessionId: room.id, recordingStarted: on, user: member.user),
                        except: connection)
        }
    }

    /// Turns the session's audio call into a video call, the ringing call's `callType` included
    /// (so later Call replies and pushes show `video`). Already video: `ERR_BAD_REQUEST`. Every
    /// device of every participant except `connection` gets `onCallSwitchedToVideo {sessionId,
    /// requestedBy}`. Same access rules as `setMuted`. Service thread only.
    public func switchToVideo(sessionId: String, from connection: ConnectionID) -> SessionOutcome {
        SessionOutcome.attempt { () throws(CoreError) in
            let (room, member) = try joinedRoom(sessionId, from: connection)
            guard room.callType != .video else { throw .badRequest("the call is already a video call") }
            room.switchToVideo(by: member.user.uid, at: nowSeconds)
            sessions[room.id]?.call.callType = .video
            noteLogChange(room)
            return tell(room, .callSwitchedToVideo(sessionId: room.id, requestedBy: member.user), except: connection)
        }
    }

    /// The outcome of an in-session op: the session as reply, `push` to every device of every
    /// participant but `connection`.
    private func tell(_ room: SessionRoom, _ push: Push, except connection: ConnectionID) -> SessionOutcome {
        var list = DeliveryList()
        list.send(push, to: devices(of: room.uids, excluding: connection))
        return SessionOutcome(reply: .success(room.snapshot), deliveries: list.deliveries)
    }
}
