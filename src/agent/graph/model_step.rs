//! The `model` node: the request through the middleware's model handlers, the call itself
//! at the end of the chain, and the reply's writes.

use std::sync::Arc;

use super::Run;
use super::node_report::node_end;
use super::task_note::note_task_error;
use crate::agent::Agent;
use crate::agent::routing::model_name;
use crate::error::Error;
use crate::events::{ModelInfo, NodeTrace, TraceData, Update};
use crate::messages::{AiMessage, Message};
use crate::middleware::ModelResponse;
use crate::model::{ModelRequest, TokenSink};
use crate::run::{new_id, new_id_between};
use crate::state::{AgentState, MessagesDelta, StateDelta};
use crate::tools::HostContext;

impl Agent {
    pub(super) async fn model_step(
        &self,
        step: u64,
        state: &mut AgentState,
        run: &Run<'_>,
    ) -> Result<Arc<StateDelta>, Error> {
        let tokens = run
            .emitter(step)
            .filter(|e| e.emitter.streams_tokens())
            .map(TokenSink::new);
        let trace = run.node_start("model", step, TraceData::State(state)).await;
        let request = ModelRequest {
            model: self.model.clone(),
            system: Some(self.system.clone()),
            messages: state.messages.messages(),
            // The structured output's part is added when the model is called, after the
            // middleware: they see the agent's tools only, as LangChain's do.
            tools: self.tools.specs(),
            schema_tools_at: None,
            tool_choice: None,
            response_format: None,
            format_override: None,
            model_settings: Default::default(),
            cache_control: None,
            state: state.clone(),
            tokens,
            host: run.options.host.clone(),
            trace: trace.clone(),
            place: Some(run.place(step)),
        };
        let response = match self
            .chain
            .model_handler(self.model_base(run))
            .call(request)
            .await
        {
            Ok(r) => r,
            Err(mut e) => {
                node_end(trace, Err(&e)).await;
                note_task_error(&mut e, "model", &run.place(step), &run.options.host).await;
                return Err(e);
            }
        };
        // The reducer gives a message without an id (one a middleware made) a fresh one.
        let arcs = |messages: Vec<Message>| -> Vec<Arc<Message>> {
            messages
                .into_iter()
                .map(|mut m| {
                    m.set_id_if_missing(new_id);
                    Arc::new(m)
                })
                .collect()
        };
        // LangChain's model node returns its writes in order: files a backend wrote during
        // the call, the reply (with the structured response), then each middleware command.
        let mut writes: Vec<StateDelta> = Vec::new();
        if let Some(files) = response.files_before {
            writes.push(StateDelta {
                files: Some(files),
                ..Default::default()
            });
        }
        let mut reply = StateDelta {
            messages: MessagesDelta::Append(arcs(response.messages)),
            ..Default::default()
        };
        if let Some(s) = response.structured {
            reply.structured_response = Some(s.value);
            reply.structured_rendered = s.rendered;
            reply.structured_host = s.host;
        } else if self.response_format.is_some() {
            // LangChain's model node clears an earlier turn's response when this call made
            // none, on an agent with a format of its own.
            reply.structured_response = Some(serde_json::Value::Null);
        }
        writes.push(reply);
        for c in response.commands {
            writes.push(StateDelta {
                // A command that does not write messages leaves the key out.
                messages: if c.messages.is_empty() {
                    MessagesDelta::None
                } else {
                    MessagesDelta::Append(arcs(c.messages))
                },
                files: c.files,
                extra: c.extra,
                ..Default::default()
            });
        }
        let (delta, reported) = if writes.len() == 1 {
            // The common step: the reply alone, written and streamed as is.
            let mut delta = writes.pop().unwrap_or_default();
            // Taken: the reducer's result replaces it.
            let written = match std::mem::take(&mut delta.messages) {
                MessagesDelta::Append(w) => w,
                _ => Vec::new(),
            };
            delta.messages = StateDelta::add_messages(&state.messages, &written);
            // A reply replacing a message by id is streamed as written, not as the list.
            let reported = matches!(delta.messages, MessagesDelta::Replace(_)).then(|| {
                let mut w = delta.clone();
                w.messages = MessagesDelta::Append(written);
                Update::Delta(Arc::new(w))
            });
            (delta, reported)
        } else {
            let combined = StateDelta::combine(&state.messages, &writes);
            let reported = match StateDelta::streamed(&writes) {
                Ok(merged) => Update::Delta(Arc::new(merged)),
                Err(split) => Update::Writes(split.into_iter().map(Arc::new).collect()),
            };
            (combined, Some(reported))
        };
        // Boxed: its future (~1.7 KB) would otherwise size this step's state while the model
        // call is awaited, the longest wait of every conversation in flight.
        Box::pin(self.finish_node(step, &model_name(), delta, reported, state, run, trace)).await
    }

    /// The innermost model handler: the call itself, the reply's name and id, its report
    /// to the listener, and LangChain's structured-output handling.
    fn model_base(&self, run: &Run<'_>) -> crate::middleware::ModelBase {
        let name = self.name.clone();
        let parser = self.response_format.clone();
        let host = run.options.host.clone();
        let report = run.report.clone();
        let seen = run.seen.clone();
        Arc::new(move |mut request: ModelRequest| {
            let (name, parser, host, report, seen) = (
                name.clone(),
                parser.clone(),
                host.clone(),
                report.clone(),
                seen.clone(),
            );
            Box::pin(async move {
                // A middleware's own format for this call wins over the agent's.
                let parser = match request.format_override.take() {
                    Some(own) => own,
                    None => parser,
                };
                // A format the provider cannot take is refused when the model is called, before
                // the model is (LangChain decides on native output only then).
                if let Some(refusal) = parser.as_ref().and_then(|p| p.refusal()) {
                    return Err(refusal.await);
                }
                // LangChain binds the format's tools after the request's (as middleware left
                // them), with its tool choice in place of the request's.
                if let Some(p) = &parser {
                    let format = p.request(&request.tools);
                    request.schema_tools_at =
                        (format.tools.len() > request.tools.len()).then_some(request.tools.len());
                    request.tools = format.tools;
                    request.tool_choice = format.tool_choice;
                    request.response_format = format.response_format;
                }
                let model = request.model.clone();
                // A model the host does not run itself, in a run whose replies the host
                // makes from their chunks: the chunks are kept for it.
                let shaper = (!model.traces_itself() && model.reads_v1_replies())
                    .then(|| crate::host::reply_shaper(&host))
                    .flatten();
                let tokens = request.tokens.take().map(|t| {
                    let t = t.for_model(Arc::new(ModelInfo {
                        params: model.ls_params(),
                    }));
                    if shaper.is_some() { t.recording() } else { t }
                });
                request.tokens = tokens.clone();
                // A model that does not report itself (a native client) is reported here.
                let llm = match request.trace.as_ref().filter(|_| !model.traces_itself()) {
                    Some(t) => {
                        let info = ModelInfo {
                            params: model.ls_params(),
                        };
                        let mut prompt: Vec<Arc<Message>> = Vec::new();
                        if let Some(s) = &request.system {
                            prompt.push(Arc::new(Message::System(s.as_ref().clone())));
                        }
                        prompt.extend(request.messages.iter().cloned());
                        t.tracer
                            .llm_start(t.run.clone(), &info, TraceData::Messages(&prompt))
                            .await
                            .map(|run| NodeTrace {
                                tracer: t.tracer.clone(),
                                run,
                            })
                    }
                    None => None,
                };
                // The request's own host context: a host wrapper's handler hands on the
                // context it was called in (see `PyHost::with_current_context`).
                let call_host = request.host.clone().or_else(|| host.clone());
                let shaped = match model.invoke(request, call_host).await {
                    Ok(reply) => shape_reply(shaper, &host, tokens.as_ref(), reply).await,
                    Err(e) => Err(Error::from(e)),
                };
                let mut reply = match shaped {
                    Ok(reply) => reply,
                    Err(e) => {
                        if let Some(l) = llm {
                            l.tracer.llm_error(l.run, TraceData::Failure(&e)).await;
                        }
                        return Err(e);
                    }
                };
                {
                    let mut report = report.lock();
                    report.model_calls += 1;
                    if let Some(usage) = &reply.usage_metadata {
                        report.usage.add(usage);
                    }
                }
                // An agent's name wins over any name the model gave its reply.
                if name.is_some() {
                    reply.name.clone_from(&name);
                }
                // LangChain's id for a model reply: `lc_run--<run id>-<generation index>`.
                reply
                    .id
                    .get_or_insert_with(|| new_id_between("lc_run--", "-0"));
                if let Some(tokens) = &tokens {
                    if !tokens.streamed() {
                        tokens.whole(Arc::new(Message::Ai(reply.clone())));
                    }
                    seen.lock().insert(reply.id.clone().unwrap_or_default());
                }
                if let Some(l) = llm {
                    let message = Message::Ai(reply.clone());
                    l.tracer.llm_end(l.run, TraceData::Message(&message)).await;
                }
                let (answers, structured) = match &parser {
                    Some(p) => p.answer(&reply, &host).await?,
                    None => (Vec::new(), None),
                };
                let mut messages = vec![Message::Ai(reply)];
                messages.extend(answers);
                Ok(ModelResponse {
                    messages,
                    structured,
                    ..Default::default()
                })
            })
        })
    }
}

/// The reply as the host makes it of the call's streamed chunks (see `ReplyShaper`), or the
/// model's own when nothing streamed.
async fn shape_reply(
    shaper: Option<&crate::host::ReplyShaper>,
    host: &HostContext,
    tokens: Option<&TokenSink>,
    reply: AiMessage,
) -> Result<AiMessage, Error> {
    let (Some(shaper), Some(tokens)) = (shaper, tokens) else {
        return Ok(reply);
    };
    let chunks = tokens.take_recorded().unwrap_or_default();
    if chunks.is_empty() {
        return Ok(reply);
    }
    let shaped = (shaper.shape)(host.clone(), tokens.call_id().to_owned(), chunks)
        .await
        .map_err(|e| Error::Model(crate::error::ModelError::Host(Arc::new(e))))?;
    Ok(shaped.unwrap_or(reply))
}
