//! LangChain's handling of a reply under `ToolStrategy`, inside the model step: a call to
//! the schema tool is answered at once (parsed, or an error the model must fix) and sets the
//! structured response.

use crate::error::Error;
use crate::messages::{AiMessage, Message, ToolCall, ToolMessage, ToolStatus};
use crate::middleware::Structured;
use crate::structured::{Answer, ParseError, SchemaTool};
use crate::tools::HostContext;

/// The tool messages answering the reply's schema calls, and the structured response when
/// one call parsed.
pub(crate) async fn answer_schema_calls<P: SchemaTool + ?Sized>(
    parser: &P,
    reply: &AiMessage,
    host: &HostContext,
) -> Result<Answer, Error> {
    let schema_calls: Vec<&ToolCall> = reply
        .tool_calls
        .iter()
        .filter(|c| parser.specs().iter().any(|s| s.name == c.name))
        .collect();
    let fatal = |name: &str, source| Error::Tool {
        tool: name.to_owned(),
        source,
    };
    match schema_calls.as_slice() {
        [] => Ok((Vec::new(), None)),
        [call] => match parser.parse(call, reply, host).await {
            Ok(parsed) => Ok((
                vec![tool_message(parsed.tool_message, call)],
                Some(Structured {
                    value: parsed.value,
                    rendered: Some(parsed.rendered),
                    host: parsed.host_value,
                }),
            )),
            Err(ParseError::Retry(text)) => Ok((vec![tool_message(text, call)], None)),
            Err(ParseError::Fatal(source)) => Err(fatal(&call.name, source)),
        },
        several => {
            let names: Vec<String> = several.iter().map(|c| c.name.clone()).collect();
            let text = match parser.multiple(names, reply, host).await {
                Ok(text) | Err(ParseError::Retry(text)) => text,
                Err(ParseError::Fatal(source)) => return Err(fatal(&several[0].name, source)),
            };
            let messages = several
                .iter()
                .map(|c| tool_message(text.clone(), c))
                .collect();
            Ok((messages, None))
        }
    }
}

fn tool_message(content: String, call: &ToolCall) -> Message {
    Message::Tool(ToolMessage::answer(
        call.id.clone().unwrap_or_default(),
        call.name.clone(),
        content,
        ToolStatus::Success,
    ))
}
