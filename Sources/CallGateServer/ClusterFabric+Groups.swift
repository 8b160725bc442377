import CallGateCore
import Foundation

/// Cluster mode: every node keeps every group in memory, and a group that another node changed
/// is read again from the store, which that node's change reached before it announced it. After
/// the bus was down (announcements may have been missed) every group is read again.
/// Service thread, but for the reads (on `storeReads`).
extension ClusterFabric {
    /// Reads group `guid` as saved now and puts it in the table; of two reads of one group
    /// under way, only the later one's result is kept.
    func reloadGroup(_ guid: String) {
        guard let shared = store as? any ClusterStore else { return }
        let generation = (groupReloads[guid] ?? 0) + 1
        groupReloads[guid] = generation
        storeReads.async { [self] in
            let result = Result { try shared.group(guid) }
            context.post { [self] in
                guard groupReloads[guid] == generation else { return }
                groupReloads[guid] = nil
                switch result {
                case .success(let group):
                    groups.refresh(guid, to: group)
                case .failure(let error):
                    logger.error("a group another node changed could not be read", metadata: ["guid": "\(guid)", "error": "\(error)"])
                }
            }
        }
    }

    /// Reads every group as saved now and makes the table hold exactly those.
    func reloadGroups() {
        let store = store
        storeReads.async { [self] in
            let result = Result { try store.groups() }
            context.post { [self] in
                switch result {
                case .success(let all):
                    groups.refreshAll(to: all)
                    logger.info("groups read again after the cluster bus came back", metadata: ["groups": "\(all.count)"])
                case .failure(let error):
                    logger.error("groups could not be read again", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
