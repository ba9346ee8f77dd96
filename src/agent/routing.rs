//! Where the loop goes: LangChain's edges between deepagents' nodes, decided from the state
//! alone (and a hook's `jump_to`), and the names LangGraph gives the nodes.

use std::collections::HashSet;
use std::sync::{Arc, LazyLock};

use super::{Agent, StartTask};
use crate::error::Error;
use crate::events::Route;
use crate::messages::{AiMessage, Message, ToolCall};
use crate::middleware::Hook;
use crate::state::{AgentState, Jump, StateDelta};
use crate::tools::SendTarget;

/// One task of a step: a node, run on the step's state or, sent by a tool's command, on a
/// state of its own.
#[derive(Clone, Debug)]
pub(super) struct Task {
    pub(super) node: Node,
    pub(super) own: Option<Arc<AgentState>>,
    /// A task of a resumed step that had finished before the step stopped: its write, kept
    /// by LangGraph, is applied instead of running the node again.
    pub(super) done: Option<Arc<StateDelta>>,
}

impl Task {
    pub(super) fn pull(node: Node) -> Task {
        Task {
            node,
            own: None,
            done: None,
        }
    }

    /// LangGraph's push task: a `Send` (the model's calls to `tools` are sent too).
    pub(super) fn is_pushed(&self) -> bool {
        self.own.is_some() || matches!(self.node, Node::Tools(false))
    }
}

/// The loop's two nodes' names, made once: a step names its node several times (for the
/// breakpoints, the next step's tasks, its route and its write), each an `Arc<str>`.
static MODEL: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("model"));
static TOOLS: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("tools"));

/// `model`'s name, shared.
pub(super) fn model_name() -> Arc<str> {
    MODEL.clone()
}

/// `tools`' name, shared.
pub(super) fn tools_name() -> Arc<str> {
    TOOLS.clone()
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Node {
    /// The `position`-th node of `hook` in running order.
    Hook(Hook, usize),
    Model,
    /// `true`: on the whole state, after a hook's `jump_to: "tools"`.
    Tools(bool),
    End,
}

/// The newest AI message and the ids of the tool results after it.
pub(super) fn last_turn(state: &AgentState) -> Option<(&AiMessage, HashSet<&str>, Vec<&str>)> {
    turn_of(state.messages.iter_newest_first())
}

/// `last_turn` of messages given newest first.
fn turn_of<'a>(
    newest_first: impl Iterator<Item = &'a Arc<Message>>,
) -> Option<(&'a AiMessage, HashSet<&'a str>, Vec<&'a str>)> {
    let mut answered = HashSet::new();
    let mut names = Vec::new();
    for m in newest_first {
        match m.as_ref() {
            Message::Tool(t) => {
                answered.insert(t.tool_call_id.as_str());
                names.extend(t.name.as_deref());
            }
            Message::Ai(ai) => return Some((ai, answered, names)),
            _ => {}
        }
    }
    None
}

impl Agent {
    /// Whether `name` is a schema tool of the response format (never run by the tools step).
    pub(super) fn is_schema_tool(&self, name: &str) -> bool {
        self.response_format
            .as_ref()
            .is_some_and(|rf| rf.is_schema_tool(name))
    }

    /// The calls of the last AI message that still need running.
    pub(super) fn pending_calls(&self, state: &AgentState) -> Vec<ToolCall> {
        let Some((ai, answered, _)) = last_turn(state) else {
            return Vec::new();
        };
        ai.tool_calls
            .iter()
            .filter(|c| self.is_pending(c, &answered))
            .cloned()
            .collect()
    }

    /// Whether the last AI message has a call that still needs running: `pending_calls`
    /// without copying the calls (their arguments can be large) only to count them.
    fn has_pending_calls(&self, state: &AgentState) -> bool {
        last_turn(state).is_some_and(|(ai, answered, _)| {
            ai.tool_calls.iter().any(|c| self.is_pending(c, &answered))
        })
    }

    fn is_pending(&self, call: &ToolCall, answered: &HashSet<&str>) -> bool {
        !self.is_schema_tool(&call.name)
            && !call.id.as_deref().is_some_and(|id| answered.contains(id))
    }

    /// LangGraph's name of a hook node.
    pub(super) fn hook_name(&self, hook: Hook, position: usize) -> Arc<str> {
        let entry = self.chain.entry(self.chain.nodes(hook)[position]);
        format!("{}.{}", entry.name(), hook.as_str()).into()
    }

    pub(super) fn route_of(&self, next: &Node, state: &AgentState) -> Route {
        match next {
            Node::End => Route::End,
            Node::Model => Route::Node(model_name()),
            Node::Tools(true) => Route::Node(tools_name()),
            Node::Tools(false) => Route::Calls(self.pending_calls(state)),
            Node::Hook(hook, position) => Route::Node(self.hook_name(*hook, *position)),
        }
    }

    /// Where the loop goes after the node named `node` on `state`, by the graph's edges:
    /// for a write made as that node outside a run (LangGraph's `update_state(as_node=...)`).
    /// A hook's jump is its own `jump_to`, when the write sets one.
    pub fn route_after(
        &self,
        node: &str,
        state: &AgentState,
        jump: Option<Jump>,
    ) -> Result<Route, Error> {
        let next = match self.node_named(node)? {
            Node::Hook(hook, position) => self.after_hook(hook, position, jump, state),
            Node::Model => match self.first(Hook::AfterModel) {
                Some(n) => n,
                None => self.route_after_model(state),
            },
            Node::Tools(_) => self.route_after_tools(state),
            Node::End => Node::End,
        };
        Ok(self.route_of(&next, state))
    }

    /// The node LangGraph names `name`.
    pub(super) fn node_named(&self, name: &str) -> Result<Node, Error> {
        match name {
            "model" => return Ok(Node::Model),
            "tools" => return Ok(Node::Tools(false)),
            _ => {}
        }
        for hook in Hook::ALL {
            for (position, &entry) in self.chain.nodes(hook).iter().enumerate() {
                let entry = self.chain.entry(entry);
                if name
                    .strip_suffix(hook.as_str())
                    .and_then(|n| n.strip_suffix('.'))
                    == Some(entry.name())
                {
                    return Ok(Node::Hook(hook, position));
                }
            }
        }
        Err(Error::InvalidInput(format!(
            "the graph has no node named {name:?}"
        )))
    }

    /// A task of the step a resumed run starts at, as the core runs it: a `tools` task sent
    /// a state, or asked for by name, runs the tool node on that state (`destinations`).
    pub(super) fn start_task(&self, start: &StartTask) -> Result<Task, Error> {
        let node = match self.node_named(&start.node)? {
            Node::Tools(_) if start.whole || start.own.is_some() => Node::Tools(true),
            node => node,
        };
        Ok(Task {
            node,
            own: start.own.clone().map(Arc::new),
            done: start.done.clone().map(Arc::new),
        })
    }

    pub(super) fn first(&self, hook: Hook) -> Option<Node> {
        (!self.chain.nodes(hook).is_empty()).then_some(Node::Hook(hook, 0))
    }

    pub(super) fn loop_entry(&self) -> Node {
        self.first(Hook::BeforeModel).unwrap_or(Node::Model)
    }

    pub(super) fn exit(&self) -> Node {
        self.first(Hook::AfterAgent).unwrap_or(Node::End)
    }

    pub(super) fn resolve(&self, jump: Jump) -> Node {
        match jump {
            Jump::Model => self.loop_entry(),
            Jump::Tools => Node::Tools(true),
            Jump::End => self.exit(),
        }
    }

    /// LangChain's edge after the model (and its `after_model` nodes).
    pub(super) fn route_after_model(&self, state: &AgentState) -> Node {
        let Some((ai, _, _)) = last_turn(state) else {
            return self.exit();
        };
        if ai.tool_calls.is_empty() {
            return self.exit();
        }
        if self.has_pending_calls(state) {
            return Node::Tools(false);
        }
        // A response cleared by this call (`null`) is none.
        if state
            .structured_response
            .as_ref()
            .is_some_and(|v| !v.is_null())
        {
            return self.exit();
        }
        // Only the schema tool was called, and it must be called again.
        self.loop_entry()
    }

    /// LangChain's edge after the tools: end when every tool called returns directly, or
    /// when a structured response was answered in this turn.
    pub(super) fn route_after_tools(&self, state: &AgentState) -> Node {
        self.tools_edge(last_turn(state))
    }

    /// Where one call's `tools` task goes, as LangGraph routes each task of a step on its
    /// own: the tools edge on the step's state with only that call's messages (`written`)
    /// added, beside its own command's gotos and `Send`s. A checkpoint writer's task takes
    /// it as soon as its call is answered: waiting for the step's route, which comes once
    /// every call is answered, would hold the task (and its executor thread) on the others.
    pub(super) fn call_route(
        &self,
        state: &AgentState,
        written: &[Arc<Message>],
        goto: &[String],
        sends: &[SendTarget],
    ) -> Route {
        let turn = turn_of(
            written
                .iter()
                .rev()
                .chain(state.messages.iter_newest_first()),
        );
        // A `Send` to no node is dropped without a word here: the step's route warns of it,
        // once, as LangGraph does.
        let sends: Vec<SendTarget> = sends
            .iter()
            .filter(|send| self.node_named(&send.node).is_ok())
            .cloned()
            .collect();
        let tasks = self.destinations(self.tools_edge(turn), goto, &sends);
        self.route_of_tasks(&tasks, state)
    }

    fn tools_edge(&self, turn: Option<(&AiMessage, HashSet<&str>, Vec<&str>)>) -> Node {
        let Some((ai, _, answered_names)) = turn else {
            return self.loop_entry();
        };
        let mut calls = ai
            .tool_calls
            .iter()
            .filter(|c| !self.is_schema_tool(&c.name))
            .peekable();
        if calls.peek().is_some() && calls.all(|c| self.tools.returns_directly(&c.name)) {
            return self.exit();
        }
        if answered_names.iter().any(|n| self.is_schema_tool(n)) {
            return self.exit();
        }
        self.loop_entry()
    }

    /// Where the loop goes after the tools step: the tools edge's destination `edge`, and
    /// beside it, in the same next step, each node its calls' commands name (`goto`) and each
    /// `Send`'s node on its own state, as LangGraph runs a step's branches. A goto to
    /// `tools` runs the tool node on the whole state. A name the graph does not have is
    /// ignored (LangGraph logs it and drops the write or the send; the warnings are the
    /// tools step's, `warn_unknown_gotos` and `warn_unknown_sends`).
    pub(super) fn destinations(
        &self,
        edge: Node,
        goto: &[String],
        sends: &[SendTarget],
    ) -> Vec<Task> {
        let whole = |node: Node| match node {
            Node::Tools(_) => Node::Tools(true),
            other => other,
        };
        let mut tasks = vec![Task::pull(edge)];
        tasks.extend(
            goto.iter()
                .filter_map(|name| self.node_named(name).ok())
                .map(|node| Task::pull(whole(node))),
        );
        tasks.extend(sends.iter().filter_map(|send| {
            // Dropped; the tools step logged LangGraph's warning of it (`warn_unknown_sends`).
            let node = self.node_named(&send.node).ok()?;
            Some(Task {
                node: whole(node),
                own: Some(send.state.clone()),
                done: None,
            })
        }));
        tasks
    }

    /// The next step's tasks from the branches of this step's: pushed tasks (`Send`s, the
    /// model's calls) first, in the order they were sent, then each node named once, in
    /// name order, as LangGraph prepares a step's tasks. The end is no task.
    pub(super) fn next_step(&self, mut branches: Vec<Task>) -> Vec<Task> {
        branches.retain(|t| !matches!(t.node, Node::End));
        // One task (a step's usual branch): nothing to order, and its list is the step's.
        if branches.len() < 2 {
            return branches;
        }
        let (mut pushed, pulled): (Vec<Task>, Vec<Task>) =
            branches.into_iter().partition(Task::is_pushed);
        let mut named: Vec<(Arc<str>, Task)> = Vec::new();
        for task in pulled {
            let Some(name) = self.node_name(&task.node) else {
                continue;
            };
            if !named.iter().any(|(n, _)| *n == name) {
                named.push((name, task));
            }
        }
        named.sort_by(|a, b| a.0.cmp(&b.0));
        pushed.extend(named.into_iter().map(|(_, t)| t));
        pushed
    }

    /// Where a node goes, as the route the core reports: one node, or several side by side.
    pub(super) fn route_of_tasks(&self, tasks: &[Task], state: &AgentState) -> Route {
        let one = |task: &Task| match &task.own {
            Some(own) => Route::Send(SendTarget {
                node: self
                    .node_name(&task.node)
                    .map_or_else(|| "__end__".to_owned(), |n| n.to_string()),
                state: own.clone(),
            }),
            None => self.route_of(&task.node, state),
        };
        match tasks {
            [] => Route::End,
            [task] => one(task),
            many => Route::Branches(many.iter().map(one).collect()),
        }
    }

    pub(super) fn after_hook(
        &self,
        hook: Hook,
        position: usize,
        jump: Option<Jump>,
        state: &AgentState,
    ) -> Node {
        // An `after_agent` node's declared jump is followed as any other's (LangChain's
        // `_add_middleware_edge` gives it the same destinations): a grader that asks for a
        // revision sends the run back to the loop's entry.
        if let Some(jump) = jump {
            return self.resolve(jump);
        }
        if position + 1 < self.chain.nodes(hook).len() {
            return Node::Hook(hook, position + 1);
        }
        match hook {
            Hook::BeforeAgent => self.loop_entry(),
            Hook::BeforeModel => Node::Model,
            Hook::AfterModel => self.route_after_model(state),
            Hook::AfterAgent => Node::End,
        }
    }

    /// LangGraph's name of a node (none for the end).
    pub(super) fn node_name(&self, node: &Node) -> Option<Arc<str>> {
        match node {
            Node::End => None,
            Node::Model => Some(model_name()),
            Node::Tools(_) => Some(tools_name()),
            Node::Hook(hook, position) => Some(self.hook_name(*hook, *position)),
        }
    }
}
