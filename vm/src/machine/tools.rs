//! Tool suspension: single tool calls, parallel batches, and resuming with their results.
//!
//! Invariants: every request's arguments are checked against the value budget and hold
//! no closure; every admitted result is checked too (an over-budget one becomes the
//! guest-visible `(:error ...)`), and charged to the retained budget; the tool-call budget
//! is checked before a request leaves the machine.

use super::dispatch::{Flow, span_at};
use super::{Args, Machine, State, internal};
use crate::error::{Error, ErrorKind, Result};
use crate::json::check_weight;
use crate::program::Program;
use crate::step::{Step, ToolRequest};
use crate::value::Value;
use std::sync::Arc;

impl Machine {
    /// Resumes after [`Step::Tool`] with the tool's result.
    pub fn resume_tool(&mut self, result: Value) -> Step {
        let State::WaitingTool { dst } = self.state else {
            return self.misuse("resume_tool");
        };
        let value = self.admit_result(result);
        if let Err(error) = value.and_then(|v| self.store(dst, v)) {
            return self.settle_error(error);
        }
        self.state = State::Ready;
        self.run()
    }

    /// Resumes after [`Step::Batch`] with the results in source order.
    pub fn resume_batch(&mut self, results: Vec<Value>) -> Step {
        if let State::WaitingBranches { count } = self.state {
            return self.resume_branches(results, count);
        }
        let State::WaitingBatch { dst, count } = self.state else {
            return self.misuse("resume_batch");
        };
        if results.len() != count {
            return self.settle_error(Error::script(format!(
                "A parallel batch of {count} calls was resumed with {} results",
                results.len()
            )));
        }
        let mut admitted = Vec::with_capacity(count);
        for result in results {
            match self.admit_result(result) {
                Ok(value) => admitted.push(value),
                Err(error) => return self.settle_error(error),
            }
        }
        let list = Value::list(admitted);
        if let Err(error) = self
            .charge_retained(crate::heap::conses(count as u64))
            .and_then(|()| self.store(dst, list))
        {
            return self.settle_error(error);
        }
        self.state = State::Ready;
        self.run()
    }

    /// Checks a tool result at the boundary: over-budget results become
    /// `(:error "Nested tool result rejected: REASON")`, as in the original.
    pub(super) fn admit_result(&mut self, result: Value) -> Result<Value> {
        let weight = result.weight();
        let value = match check_weight(weight, &self.limits) {
            Ok(()) if !weight.has_closure => result,
            Ok(()) => self
                .error_value("Nested tool result rejected: closures cannot cross a tool boundary"),
            Err(error) => {
                self.error_value(&format!("Nested tool result rejected: {}", error.message()))
            }
        };
        self.charge_retained(crate::heap::of(&value))?;
        Ok(value)
    }

    pub(super) fn store(&mut self, dst: usize, value: Value) -> Result<()> {
        let slot = self
            .regs
            .get_mut(dst)
            .ok_or_else(|| internal("resume register out of range"))?;
        *slot = value;
        Ok(())
    }

    pub(super) fn current_span(&self, program: &Program, pc: usize) -> crate::Span {
        self.frames
            .last()
            .and_then(|f| program.functions.get(f.func))
            .map_or_else(crate::Span::default, |f| span_at(f, pc.saturating_sub(1)))
    }

    pub(super) fn request(
        &mut self,
        program: &Program,
        tool: usize,
        args: Args,
        span: crate::Span,
    ) -> Result<ToolRequest> {
        let name = program
            .tools
            .get(tool)
            .ok_or_else(|| internal("tool index"))?;
        let count = args.len() as u64;
        let list = Value::list(args);
        let weight = list.weight();
        check_weight(weight, &self.limits)?;
        if weight.has_closure {
            return Err(closure_boundary());
        }
        self.charge_retained(crate::heap::conses(count))?;
        Ok(ToolRequest {
            tool: Arc::clone(name),
            args: list,
            span,
        })
    }

    pub(super) fn call_tool(
        &mut self,
        program: &Program,
        tool: usize,
        args: Args,
        ret: usize,
        span: crate::Span,
    ) -> Result<Flow> {
        if self.batch_mut().is_some() {
            return Err(Error::script(
                "A parallel call argument may not call another tool",
            ));
        }
        let name = program
            .tools
            .get(tool)
            .ok_or_else(|| internal("tool index"))?;
        if self.stats.tool_calls >= self.limits.tool_calls {
            return Err(Error::new(
                ErrorKind::ToolCall,
                format!(
                    "Script exceeded its budget of {} tool calls before nested call {} at call {}",
                    self.limits.tool_calls,
                    name,
                    self.stats.tool_calls + 1
                ),
            ));
        }
        let request = self.request(program, tool, args, span)?;
        self.stats.tool_calls += 1;
        if let Some(branches) = self.branches.as_deref_mut() {
            // A branch's call joins the round ([`super::branches`]).
            branches.event = Some(super::branches::Event::Call { dst: ret, request });
            return Ok(Flow::Suspend);
        }
        self.state = State::WaitingTool { dst: ret };
        self.pending = Some(Box::new(Step::Tool(request)));
        Ok(Flow::Suspend)
    }
}

pub(super) fn closure_boundary() -> Error {
    Error::closure_at_boundary()
}
