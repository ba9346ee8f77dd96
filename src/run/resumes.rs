//! The subagents a run resumes: the ones its first task hands over, and the ones whose tasks
//! start while it runs.
//!
//! LangGraph runs the tasks of a step as its executor has room for them, so when a step whose
//! subagents stopped is resumed, a sibling's task may start well after the first one (the
//! thread pool is full of siblings that wait for their own subagents' writes). The core's run
//! starts with the first and knows the others are coming (`awaited`): their `task` calls wait
//! for their resumes to arrive instead of starting the subagent afresh or the run waiting for
//! every task before it starts.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::tools::HostContext;

/// Where a subagent stopped by an interrupt picks up again when its `task` call is run once
/// more: the state its own checkpoint holds, the node it stopped in, the steps it had run,
/// and the host context of that node's task (LangGraph's `interrupt()` reads the answer
/// from there). A resumed subagent does not repeat the steps it finished.
pub struct SubagentResume {
    pub state: crate::state::AgentState,
    pub start: String,
    pub steps_before: u64,
    pub host: HostContext,
    /// Calls of the step it resumes that had finished (see `RunOptions::resumed_calls`).
    pub resumed_calls: Vec<String>,
}

/// The subagents a run resumes, by the `task` call that started them; each is taken once.
#[derive(Clone, Default)]
pub struct SubagentResumes(Arc<Book>);

#[derive(Default)]
struct Book {
    entries: parking_lot::Mutex<Entries>,
    arrived: tokio::sync::Notify,
}

#[derive(Default)]
struct Entries {
    ready: HashMap<String, SubagentResume>,
    /// Calls whose resume arrives while the run goes.
    awaited: HashSet<String>,
}

impl SubagentResumes {
    pub fn new(
        ready: HashMap<String, SubagentResume>,
        awaited: impl IntoIterator<Item = String>,
    ) -> Self {
        let awaited = awaited
            .into_iter()
            .filter(|id| !ready.contains_key(id))
            .collect();
        SubagentResumes(Arc::new(Book {
            entries: parking_lot::Mutex::new(Entries { ready, awaited }),
            arrived: tokio::sync::Notify::new(),
        }))
    }

    /// The resume of an awaited call, once its task has started.
    pub fn arrive(&self, call_id: String, resume: SubagentResume) {
        {
            let mut entries = self.0.entries.lock();
            entries.awaited.remove(&call_id);
            entries.ready.insert(call_id, resume);
        }
        self.0.arrived.notify_waiters();
    }

    /// The resume of ``call_id``: at once if it is here, after it arrives if it is awaited,
    /// `None` if the call is not one the run resumes.
    pub async fn take(&self, call_id: &str) -> Option<SubagentResume> {
        loop {
            // Made before looking, so an arrival between the look and the wait is not missed.
            let arrived = self.0.arrived.notified();
            {
                let mut entries = self.0.entries.lock();
                if let Some(resume) = entries.ready.remove(call_id) {
                    return Some(resume);
                }
                if !entries.awaited.contains(call_id) {
                    return None;
                }
            }
            arrived.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resume(start: &str) -> SubagentResume {
        SubagentResume {
            state: Default::default(),
            start: start.into(),
            steps_before: 1,
            host: None,
            resumed_calls: Vec::new(),
        }
    }

    #[tokio::test]
    async fn an_awaited_call_takes_its_resume_once_it_arrives() {
        let resumes = SubagentResumes::new(
            HashMap::from([("a".to_string(), resume("model"))]),
            ["b".to_string()],
        );
        assert_eq!(
            resumes.take("a").await.map(|r| r.start),
            Some("model".to_string())
        );
        assert!(resumes.take("a").await.is_none(), "each is taken once");
        assert!(
            resumes.take("c").await.is_none(),
            "not resumed: starts afresh"
        );
        let waiting = tokio::spawn({
            let resumes = resumes.clone();
            async move { resumes.take("b").await.map(|r| r.start) }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        resumes.arrive("b".into(), resume("tools"));
        assert_eq!(waiting.await.ok().flatten(), Some("tools".to_string()));
    }
}
