//! The interactive `scout tools` on a terminal (ratatui + crossterm, on the alternate screen):
//! pick a tool from the catalogue — each shown with what the safety policy would do with it —
//! fill its arguments in a form built from its input schema (string, number, integer, boolean,
//! enum, JSON for the rest; required ones marked, defaults shown), and call it. The call takes
//! the same path as `scout call` ([`call_tool`]: arguments typed by the schema, then the
//! policy, then the request), so a tool the policy refuses is refused here too, with the flag
//! that would allow it.
//!
//! Keys: ↑/↓ pick, Enter fill / call, Tab moves between fields, ←/→/Space choose a boolean or
//! enum value, Esc goes back, q (or Esc on the list) quits. Ctrl-C quits from anywhere (exit
//! 130). The terminal is restored on every way out, a panic included.

use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph, Wrap};
use serde_json::Value;

use crate::cli::CliError;
use crate::cli::connect::{resolve, runtime};
use crate::cli::tools::{ToolsArgs, call_tool, open, preferred_tools};
use crate::policy::{self, Decision};

/// Exit code of a selector left with Ctrl-C (the shell's convention for SIGINT).
const INTERRUPTED: u8 = 130;

/// What a form field holds, from its property schema.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Free text, sent as a string.
    Text,
    /// A number, typed as the schema says by the same parser as `scout call --arg`.
    Number,
    Integer,
    /// true / false / unset.
    Boolean,
    /// One of the listed values, or unset.
    Choice(Vec<String>),
    /// Objects, arrays and anything else: written as JSON.
    Json,
}

impl Kind {
    fn of(prop: &Value) -> Kind {
        if let Some(values) = prop.get("enum").and_then(Value::as_array) {
            return Kind::Choice(values.iter().map(as_text).collect());
        }
        let types: Vec<&str> = match prop.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let has = |t: &str| types.contains(&t);
        if types.is_empty() || has("string") {
            Kind::Text
        } else if has("integer") {
            Kind::Integer
        } else if has("number") {
            Kind::Number
        } else if has("boolean") {
            Kind::Boolean
        } else {
            Kind::Json
        }
    }

    fn label(&self) -> &'static str {
        match self {
            Kind::Text => "string",
            Kind::Number => "number",
            Kind::Integer => "integer",
            Kind::Boolean => "boolean",
            Kind::Choice(_) => "one of",
            Kind::Json => "JSON",
        }
    }

    /// The values ←/→ cycle through ("" = unset), for the kinds that have a fixed set.
    fn choices(&self) -> Option<Vec<String>> {
        match self {
            Kind::Boolean => Some(vec![String::new(), "true".into(), "false".into()]),
            Kind::Choice(values) => Some(
                std::iter::once(String::new())
                    .chain(values.iter().cloned())
                    .collect(),
            ),
            _ => None,
        }
    }
}

/// A JSON value as a person would type it: strings bare, everything else as JSON.
fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One argument of the form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub kind: Kind,
    pub required: bool,
    /// The schema's `default`, shown as a hint (an empty field sends nothing, and the server
    /// applies its default).
    pub default: Option<String>,
    pub description: Option<String>,
    /// What was typed or chosen ("" = not sent).
    pub value: String,
}

/// The form fields of an input schema: its top-level properties, in the schema's order.
pub fn fields(schema: &Value) -> Vec<Field> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(name, prop)| Field {
                    name: name.clone(),
                    kind: Kind::of(prop),
                    required: required.contains(&name.as_str()),
                    default: prop.get("default").map(as_text),
                    description: prop
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    value: String::new(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One tool of the list.
#[derive(Debug, Clone)]
struct Tool {
    name: String,
    title: Option<String>,
    description: Option<String>,
    kind: &'static str,
    decision: Decision,
    args: String,
    schema: Value,
}

/// The form of the tool being filled in.
#[derive(Debug, Clone)]
struct Form {
    tool: usize,
    fields: Vec<Field>,
    focus: usize,
    /// Why the last Enter did not call (a required field is empty).
    error: Option<String>,
}

impl Form {
    /// `NAME=VALUE` for every field that holds something: what `scout call --arg` takes.
    fn pairs(&self) -> Vec<String> {
        self.fields
            .iter()
            .filter(|f| !f.value.is_empty())
            .map(|f| format!("{}={}", f.name, f.value))
            .collect()
    }

    /// Why Enter cannot call yet, and the field to put the cursor on: a required field that
    /// is empty, or a value its type does not read (the same reading as the call's).
    fn problem(&self, schema: &Value) -> Option<(usize, String)> {
        if let Some(at) = self
            .fields
            .iter()
            .position(|f| f.required && f.value.is_empty())
        {
            return Some((at, format!("required: {}", self.missing().join(", "))));
        }
        self.fields.iter().enumerate().find_map(|(at, f)| {
            if f.value.is_empty() {
                return None;
            }
            let pair = format!("{}={}", f.name, f.value);
            match policy::args::cli_arguments(&[pair], None, schema) {
                Err(policy::args::ArgError::BadValue { expected, .. }) => {
                    Some((at, format!("{}: {:?} is not {expected}", f.name, f.value)))
                }
                _ => None,
            }
        })
    }

    fn missing(&self) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|f| f.required && f.value.is_empty())
            .map(|f| f.name.as_str())
            .collect()
    }
}

/// What a call produced.
#[derive(Debug, Clone)]
struct Outcome {
    tool: usize,
    /// The headline: `result`, `the tool reported an error`, `refused by the safety policy`…
    headline: String,
    ok: bool,
    text: String,
    scroll: u16,
}

#[derive(Debug, Clone)]
enum Screen {
    List,
    /// A tool the policy refuses, picked from the list: why, and what would allow it (no
    /// form opens for it).
    Refused(usize),
    Form(Form),
    /// The result, over the form it came from (Esc returns to it with its values).
    Result(Form, Outcome),
}

/// What the loop must do after a key.
#[derive(Debug, Clone, PartialEq)]
enum Action {
    Nothing,
    Quit,
    Interrupted,
    /// Call `tool` with these `NAME=VALUE` pairs.
    Call {
        tool: usize,
        pairs: Vec<String>,
    },
}

/// The whole selector's state; a pure function of the keys pressed and the calls' results.
struct App {
    server: String,
    tools: Vec<Tool>,
    list: ListState,
    screen: Screen,
    /// Shown while a call is under way.
    calling: Option<String>,
}

impl App {
    fn new(server: &str, tools: &[Value], policy: &crate::spec::PolicySpec) -> App {
        let rows = policy::tool_table(tools, policy);
        let tools = rows
            .into_iter()
            .zip(tools)
            .map(|(row, t)| Tool {
                kind: row.hints.kind(),
                description: t
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                schema: t.get("inputSchema").cloned().unwrap_or(Value::Null),
                name: row.name,
                title: row.title,
                decision: row.decision,
                args: row.schema,
            })
            .collect::<Vec<_>>();
        let mut list = ListState::default();
        if !tools.is_empty() {
            list.select(Some(0));
        }
        App {
            server: server.to_string(),
            tools,
            list,
            screen: Screen::List,
            calling: None,
        }
    }

    fn key(&mut self, key: KeyEvent) -> Action {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Action::Interrupted;
        }
        match &mut self.screen {
            Screen::List => match key.code {
                KeyCode::Esc | KeyCode::Char('q') => Action::Quit,
                KeyCode::Up | KeyCode::Char('k') => {
                    self.list.select_previous();
                    Action::Nothing
                }
                KeyCode::Down | KeyCode::Char('j') => {
                    self.list.select_next();
                    Action::Nothing
                }
                KeyCode::Enter => {
                    if let Some(i) = self.list.selected().filter(|i| *i < self.tools.len()) {
                        if !self.tools[i].decision.allows() {
                            self.screen = Screen::Refused(i);
                            return Action::Nothing;
                        }
                        self.screen = Screen::Form(Form {
                            tool: i,
                            fields: fields(&self.tools[i].schema),
                            focus: 0,
                            error: None,
                        });
                    }
                    Action::Nothing
                }
                _ => Action::Nothing,
            },
            Screen::Refused(_) => match key.code {
                KeyCode::Char('q') => Action::Quit,
                KeyCode::Esc | KeyCode::Enter | KeyCode::Backspace => {
                    self.screen = Screen::List;
                    Action::Nothing
                }
                _ => Action::Nothing,
            },
            Screen::Form(form) => match form_key(form, key, &self.tools[form.tool].schema) {
                Some(action) => action,
                None => {
                    self.screen = Screen::List;
                    Action::Nothing
                }
            },
            Screen::Result(form, out) => match key.code {
                KeyCode::Char('q') => Action::Quit,
                KeyCode::Up => {
                    out.scroll = out.scroll.saturating_sub(1);
                    Action::Nothing
                }
                KeyCode::Down => {
                    out.scroll = out.scroll.saturating_add(1);
                    Action::Nothing
                }
                KeyCode::Esc | KeyCode::Enter | KeyCode::Backspace => {
                    self.screen = Screen::Form(form.clone());
                    Action::Nothing
                }
                _ => Action::Nothing,
            },
        }
    }

    /// Shows what the call of `tool` produced.
    fn show(&mut self, tool: usize, result: Result<Value, CliError>) {
        let (headline, ok, text) = match result {
            Ok(v) if v.get("isError").and_then(Value::as_bool) == Some(true) => (
                "the tool reported an error".to_string(),
                false,
                policy::render_call_result(&v),
            ),
            Ok(v) => ("result".to_string(), true, policy::render_call_result(&v)),
            Err(CliError::Refused(m)) => ("refused by the safety policy".to_string(), false, m),
            Err(CliError::Usage(m)) => ("not called: bad arguments".to_string(), false, m),
            Err(CliError::Unreachable(m) | CliError::Internal(m)) => {
                ("the call failed".to_string(), false, m)
            }
        };
        let form = match std::mem::replace(&mut self.screen, Screen::List) {
            Screen::Form(f) | Screen::Result(f, _) => f,
            Screen::List | Screen::Refused(_) => Form {
                tool,
                fields: fields(&self.tools[tool].schema),
                focus: 0,
                error: None,
            },
        };
        self.calling = None;
        self.screen = Screen::Result(
            form,
            Outcome {
                tool,
                headline,
                ok,
                text,
                scroll: 0,
            },
        );
    }
}

/// A key on the form of a tool with this input schema; `None` = back to the list.
fn form_key(form: &mut Form, key: KeyEvent, schema: &Value) -> Option<Action> {
    let n = form.fields.len();
    if key.code == KeyCode::Enter {
        return Some(match form.problem(schema) {
            None => {
                form.error = None;
                Action::Call {
                    tool: form.tool,
                    pairs: form.pairs(),
                }
            }
            // The cursor goes back to the field to fix.
            Some((at, why)) => {
                form.focus = at;
                form.error = Some(why);
                Action::Nothing
            }
        });
    }
    let field = form.fields.get_mut(form.focus);
    Some(match key.code {
        KeyCode::Esc => return None,
        KeyCode::Tab | KeyCode::Down if n > 0 => {
            form.focus = (form.focus + 1) % n;
            Action::Nothing
        }
        KeyCode::BackTab | KeyCode::Up if n > 0 => {
            form.focus = (form.focus + n - 1) % n;
            Action::Nothing
        }
        code => {
            let Some(f) = field else {
                return Some(Action::Nothing);
            };
            if let Some(choices) = f.kind.choices() {
                let at = choices.iter().position(|c| *c == f.value).unwrap_or(0);
                let len = choices.len();
                let next = match code {
                    KeyCode::Left => (at + len - 1) % len,
                    KeyCode::Right | KeyCode::Char(' ') => (at + 1) % len,
                    KeyCode::Backspace | KeyCode::Delete => 0,
                    _ => at,
                };
                f.value = choices[next].clone();
            } else {
                match code {
                    KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                        f.value.clear()
                    }
                    KeyCode::Char(c) => f.value.push(c),
                    KeyCode::Backspace => {
                        f.value.pop();
                    }
                    _ => {}
                }
            }
            Action::Nothing
        }
    })
}

/// Runs the selector for the server of `args`; the connection is closed on every way out.
pub fn run(args: &ToolsArgs) -> Result<u8, CliError> {
    let spec = resolve(&args.one, &args.policy)?;
    let rt = runtime()?;
    let opened = rt.block_on(open(&spec, args.one.reauth()?))?;
    let outcome = rt
        .block_on(preferred_tools(&opened))
        .and_then(|(wire, tools)| {
            let app = App::new(&spec.name, &tools, &spec.policy);
            interact(app, |tool, pairs| {
                rt.block_on(call_tool(wire, &tools, &spec, tool, pairs, None))
            })
        });
    rt.block_on(opened.close());
    outcome
}

/// The terminal, taken over for the selector and given back on drop (and on a panic).
struct Screenful(DefaultTerminal);

impl Screenful {
    fn take() -> Result<Screenful, CliError> {
        let terminal = ratatui::try_init()
            .map_err(|e| CliError::Internal(format!("could not set up the terminal: {e}")))?;
        // ratatui's panic hook leaves raw mode and the alternate screen; show the cursor too
        // (scout's own hook ends the process, so no destructor runs after a panic).
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            show_cursor();
            previous(info);
        }));
        Ok(Screenful(terminal))
    }
}

fn show_cursor() {
    let _ = ratatui::crossterm::execute!(std::io::stdout(), ratatui::crossterm::cursor::Show);
}

impl Drop for Screenful {
    fn drop(&mut self) {
        let _ = self.0.show_cursor();
        ratatui::restore();
        show_cursor();
    }
}

/// The key loop: draws, reads a key, acts, until the person quits.
fn interact(
    mut app: App,
    mut call: impl FnMut(&str, &[String]) -> Result<Value, CliError>,
) -> Result<u8, CliError> {
    let mut term = Screenful::take()?;
    let failed = |e: std::io::Error| CliError::Internal(format!("terminal error: {e}"));
    loop {
        term.0.draw(|f| draw(f, &mut app)).map_err(failed)?;
        let Event::Key(key) = event::read().map_err(failed)? else {
            continue;
        };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        match app.key(key) {
            Action::Nothing => {}
            Action::Quit => return Ok(crate::exit::PASSED),
            Action::Interrupted => return Ok(INTERRUPTED),
            Action::Call { tool, pairs } => {
                let name = app.tools[tool].name.clone();
                app.calling = Some(format!("calling {name}…"));
                term.0.draw(|f| draw(f, &mut app)).map_err(failed)?;
                let result = call(&name, &pairs);
                app.show(tool, result);
            }
        }
    }
}

/// The policy's verdict in the words of the piped table (`Decision::explain`).
fn decision_line(d: &Decision) -> Line<'static> {
    let style = if d.allows() {
        Style::new().green()
    } else {
        Style::new().yellow()
    };
    Line::from(vec![
        Span::raw("policy: "),
        Span::styled(d.explain(), style),
    ])
}

fn keys_line(text: &str) -> Paragraph<'_> {
    Paragraph::new(Line::from(text).dim())
}

fn draw(f: &mut ratatui::Frame, app: &mut App) {
    let [head, body, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(2),
    ])
    .areas(f.area());
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("scout tools ", Style::new().bold()),
            Span::raw(format!("· {} · {} tool(s)", app.server, app.tools.len())),
        ])),
        head,
    );
    let keys = match &app.screen {
        Screen::List => "↑/↓ pick · Enter fill in and call · q quit",
        Screen::Refused(_) => "Esc back to the list · q quit",
        Screen::Form(_) => "Tab/↑/↓ field · ←/→/Space choose · Enter call · Esc back · Ctrl-C quit",
        Screen::Result(..) => "↑/↓ scroll · Esc back to the form · q quit",
    };
    let foot_text = match &app.calling {
        Some(c) => Paragraph::new(Line::from(c.as_str()).bold()),
        None => keys_line(keys),
    };
    f.render_widget(foot_text, foot);
    match &app.screen {
        Screen::List => draw_list(f, body, app),
        Screen::Refused(i) => {
            let tool = &app.tools[*i];
            let mut lines = vec![Line::from(match &tool.decision {
                Decision::Skip { reason, .. } => {
                    format!("scout will not call {}: it {reason}.", tool.name)
                }
                Decision::Call => String::new(),
            })];
            if let Some(how) = tool.decision.how_to_allow() {
                lines.push(Line::default());
                lines.push(Line::from(format!("To allow it, {how}.")));
            }
            let p = Paragraph::new(lines).wrap(Wrap { trim: false }).block(
                Block::default()
                    .borders(Borders::ALL)
                    .title(Line::from(vec![
                        Span::raw(format!(" {} — ", tool.name)),
                        Span::styled("refused by the safety policy", Style::new().yellow().bold()),
                        Span::raw(" "),
                    ])),
            );
            f.render_widget(p, body);
        }
        Screen::Form(form) => {
            let tool = &app.tools[form.tool];
            draw_form(f, body, tool, form);
        }
        Screen::Result(_, out) => {
            let tool = &app.tools[out.tool];
            let color = if out.ok {
                Style::new().green()
            } else {
                Style::new().red()
            };
            let p = Paragraph::new(out.text.clone())
                .wrap(Wrap { trim: false })
                .scroll((out.scroll, 0))
                .block(
                    Block::default()
                        .borders(Borders::ALL)
                        .title(Line::from(vec![
                            Span::raw(format!(" {} — ", tool.name)),
                            Span::styled(out.headline.clone(), color.bold()),
                            Span::raw(" "),
                        ])),
                );
            f.render_widget(p, body);
        }
    }
}

fn draw_list(f: &mut ratatui::Frame, area: Rect, app: &mut App) {
    if app.tools.is_empty() {
        f.render_widget(Paragraph::new("The server lists no tools."), area);
        return;
    }
    let width = app
        .tools
        .iter()
        .map(|t| t.name.len())
        .max()
        .unwrap_or(0)
        .min(40);
    // The box fits its rows (the highlight mark, name, kind and verdict, inside the borders)
    // and the details sit right under it, not at the bottom of a tall terminal.
    let rows = u16::try_from(app.tools.len()).unwrap_or(u16::MAX);
    let list_h = rows
        .saturating_add(2)
        .min(area.height.saturating_sub(7).max(3));
    let list_w = u16::try_from(2 + 2 + width + 2 + 12 + 1 + 8)
        .unwrap_or(u16::MAX)
        .min(area.width);
    let [list_row, detail, _] = Layout::vertical([
        Constraint::Length(list_h),
        Constraint::Length(7),
        Constraint::Min(0),
    ])
    .areas(area);
    let [list_area, _] =
        Layout::horizontal([Constraint::Length(list_w), Constraint::Min(0)]).areas(list_row);
    let items: Vec<ListItem> = app
        .tools
        .iter()
        .map(|t| {
            let style = if t.decision.allows() {
                Style::new().green()
            } else {
                Style::new().yellow()
            };
            let verdict = Span::styled(t.decision.verdict(), style);
            ListItem::new(Line::from(vec![
                Span::raw(format!("{:<width$}  {:<12} ", t.name, t.kind)),
                verdict,
            ]))
        })
        .collect();
    let list = List::new(items)
        .block(Block::default().borders(Borders::ALL).title(" tools "))
        .highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .highlight_symbol("> ");
    f.render_stateful_widget(list, list_area, &mut app.list);
    if let Some(t) = app.list.selected().and_then(|i| app.tools.get(i)) {
        let mut lines = vec![decision_line(&t.decision)];
        if let Some(title) = &t.title {
            lines.push(Line::from(format!("title: {title}")));
        }
        lines.push(Line::from(format!("args: {}", t.args)));
        if let Some(d) = &t.description {
            lines.push(Line::from(d.clone()).dim());
        }
        f.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: true })
                .block(Block::default().borders(Borders::TOP)),
            detail,
        );
    }
}

fn draw_form(f: &mut ratatui::Frame, area: Rect, tool: &Tool, form: &Form) {
    let mut lines = vec![decision_line(&tool.decision), Line::default()];
    if form.fields.is_empty() {
        lines.push(Line::from("(no arguments) — Enter calls the tool").dim());
    }
    for (i, field) in form.fields.iter().enumerate() {
        let focused = i == form.focus;
        let marker = if focused { "> " } else { "  " };
        let star = if field.required { "*" } else { "" };
        let value = if field.value.is_empty() && !focused {
            Span::styled("(not sent)", Style::new().dim())
        } else if field.kind.choices().is_some() {
            let shown = if field.value.is_empty() {
                "(not sent)"
            } else {
                field.value.as_str()
            };
            Span::styled(format!("◂ {shown} ▸"), Style::new().bold())
        } else {
            // The block after the text is where typing goes (a drawn cell, not the cursor).
            let caret = if focused { "▏" } else { "" };
            Span::styled(format!("{}{caret}", field.value), Style::new().bold())
        };
        lines.push(Line::from(vec![
            Span::raw(marker),
            Span::styled(format!("{}{star}", field.name), Style::new().bold()),
            Span::raw(format!(" ({}): ", field.kind.label())),
            value,
        ]));
        let mut hints = Vec::new();
        if let Kind::Choice(values) = &field.kind {
            hints.push(format!("one of: {}", values.join(", ")));
        }
        if let Some(d) = &field.default {
            hints.push(format!("default: {d}"));
        }
        if let Some(d) = &field.description {
            hints.push(d.clone());
        }
        if !hints.is_empty() {
            lines.push(Line::from(format!("    {}", hints.join(" · "))).dim());
        }
    }
    if let Some(e) = &form.error {
        lines.push(Line::default());
        lines.push(Line::from(e.clone()).red());
    }
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).block(
            Block::default()
                .borders(Borders::ALL)
                .title(format!(" call {} (* required) ", tool.name)),
        ),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn press(app: &mut App, code: KeyCode) -> Action {
        app.key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn typed(app: &mut App, text: &str) {
        for c in text.chars() {
            press(app, KeyCode::Char(c));
        }
    }

    fn catalogue() -> Vec<Value> {
        vec![
            json!({"name": "echo", "description": "Echo.", "annotations": {"readOnlyHint": true},
                "inputSchema": {"type": "object", "required": ["message"], "properties": {
                    "message": {"type": "string", "description": "Text"},
                    "times": {"type": "integer", "default": 1},
                    "loud": {"type": "boolean"},
                    "tone": {"enum": ["calm", "warm"]},
                    "extra": {"type": "object"}}}}),
            json!({"name": "add_note", "annotations": {"readOnlyHint": false, "destructiveHint": false},
                "inputSchema": {"type": "object", "properties": {}}}),
        ]
    }

    #[test]
    fn fields_follow_the_schema() {
        let f = fields(&catalogue()[0]["inputSchema"]);
        let kinds: Vec<(&str, &Kind, bool)> = f
            .iter()
            .map(|f| (f.name.as_str(), &f.kind, f.required))
            .collect();
        assert_eq!(
            kinds,
            [
                ("message", &Kind::Text, true),
                ("times", &Kind::Integer, false),
                ("loud", &Kind::Boolean, false),
                (
                    "tone",
                    &Kind::Choice(vec!["calm".into(), "warm".into()]),
                    false
                ),
                ("extra", &Kind::Json, false),
            ]
        );
        assert_eq!(f[1].default.as_deref(), Some("1"));
        assert_eq!(f[0].description.as_deref(), Some("Text"));
        assert!(fields(&Value::Null).is_empty());
        assert_eq!(Kind::of(&json!({"type": ["number", "null"]})), Kind::Number);
    }

    /// Pick, fill (text, integer, boolean, enum), call; a missing required field stops the
    /// call; the result returns to the form with its values; Esc and q leave.
    #[test]
    fn keys_fill_the_form_and_call() {
        let mut app = App::new("srv", &catalogue(), &Default::default());
        assert_eq!(press(&mut app, KeyCode::Enter), Action::Nothing);
        assert!(matches!(app.screen, Screen::Form(_)));
        // Required message is empty: no call.
        assert_eq!(press(&mut app, KeyCode::Enter), Action::Nothing);
        let Screen::Form(form) = &app.screen else {
            panic!("form")
        };
        assert_eq!(form.error.as_deref(), Some("required: message"));
        typed(&mut app, "hi q");
        press(&mut app, KeyCode::Tab);
        typed(&mut app, "3");
        press(&mut app, KeyCode::Tab);
        press(&mut app, KeyCode::Char(' ')); // boolean: unset → true
        press(&mut app, KeyCode::Tab);
        press(&mut app, KeyCode::Left); // enum: unset → last value
        assert_eq!(
            press(&mut app, KeyCode::Enter),
            Action::Call {
                tool: 0,
                pairs: vec![
                    "message=hi q".into(),
                    "times=3".into(),
                    "loud=true".into(),
                    "tone=warm".into()
                ]
            }
        );
        app.show(
            0,
            Ok(json!({"content": [{"type": "text", "text": "Echo: hi q"}]})),
        );
        let Screen::Result(_, out) = &app.screen else {
            panic!("result")
        };
        assert!(out.ok && out.text.contains("Echo: hi q"), "{out:?}");
        press(&mut app, KeyCode::Esc);
        let Screen::Form(form) = &app.screen else {
            panic!("back to the form")
        };
        assert_eq!(form.fields[0].value, "hi q");
        press(&mut app, KeyCode::Esc);
        assert!(matches!(app.screen, Screen::List));
        assert_eq!(press(&mut app, KeyCode::Char('q')), Action::Quit);
        assert_eq!(
            app.key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Action::Interrupted
        );
    }

    /// A refused tool opens no form: the selector says why and what would allow it, and Esc
    /// goes back to the list.
    #[test]
    fn a_refused_tool_says_so_before_any_form() {
        let mut app = App::new("srv", &catalogue(), &Default::default());
        assert!(!app.tools[1].decision.allows());
        press(&mut app, KeyCode::Down);
        assert_eq!(press(&mut app, KeyCode::Enter), Action::Nothing);
        assert!(matches!(app.screen, Screen::Refused(1)), "{:?}", app.screen);
        assert_eq!(
            app.tools[1].decision.how_to_allow().as_deref(),
            Some("start scout again with --allow-mutations")
        );
        // Enter again calls nothing.
        assert_eq!(press(&mut app, KeyCode::Enter), Action::Nothing);
        assert!(matches!(app.screen, Screen::List));
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Esc);
        assert!(matches!(app.screen, Screen::List));
    }

    /// A value its type does not read stops the call with the selector's words (no `--arg`)
    /// and puts the cursor back on that field; so does an empty required field.
    #[test]
    fn a_bad_value_puts_the_cursor_on_its_field() {
        let mut app = App::new("srv", &catalogue(), &Default::default());
        press(&mut app, KeyCode::Enter);
        typed(&mut app, "hi");
        press(&mut app, KeyCode::Tab);
        typed(&mut app, "three");
        press(&mut app, KeyCode::Tab);
        assert_eq!(press(&mut app, KeyCode::Enter), Action::Nothing);
        let Screen::Form(form) = &app.screen else {
            panic!("form")
        };
        assert_eq!(form.focus, 1);
        let error = form.error.as_deref().unwrap_or_default();
        assert_eq!(error, "times: \"three\" is not an integer");
        // Emptying the required field moves the cursor there.
        for _ in 0..4 {
            press(&mut app, KeyCode::Backspace);
        }
        typed(&mut app, "3");
        press(&mut app, KeyCode::BackTab);
        app.key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        press(&mut app, KeyCode::Tab);
        press(&mut app, KeyCode::Tab);
        assert_eq!(press(&mut app, KeyCode::Enter), Action::Nothing);
        let Screen::Form(form) = &app.screen else {
            panic!("form")
        };
        assert_eq!(form.focus, 0);
        assert_eq!(form.error.as_deref(), Some("required: message"));
    }
}
