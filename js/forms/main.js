// Veil's declarative tools: a <form toolname> becomes a tool that runs
// through the engine like one of registerTool's. webmcp.js imports this
// module from beside itself the first time it sees such a form, and hands
// start() the functions of its own that register a tool (prepare and
// submit, registerTool's two halves); the module exports nothing else, so
// a page that imports it gains nothing it did not have.
//
// webmcp.js has already moved the form's toolname to data-veil-toolname,
// so that the browser's own WebMCP never registers the form around the
// engine. This module derives the tool from the form (its name, its
// description, an input schema from its controls, and the sensitivity the
// form declares), keeps it up to date as the form changes, and runs it: it
// fills the controls from the agent's arguments as a user's typing would,
// then submits the form (toolautosubmit) or waits for the user to; the
// submit event says agentInvoked, and respondWith(promise) gives the tool's
// output, which goes to the engine as any execute's result does. Before it
// does, the engine gets the values of the form the answer must not give
// the agent (what the user typed, a password, a one-time code, a hidden
// token), which it withholds from the answer and every later output.
/// <reference path="../webmcp.d.ts" />
// The entry, an ES module webmcp.js imports: attributes.js reads what a
// form's attributes say, controls.js its controls, definition.js the tool
// it declares, tools.js registers it, calls.js runs its calls, note.js
// reads what an answer must not give the agent, submit.js is the page's
// side of an agent's submission. Nothing acts on the page until start.

import { install } from './submit.js';
import { tools } from './tools.js';

/**
 * start installs the module's listeners and returns the handle webmcp.js
 * calls: seen(form) when a form has a toolname, removed() when nodes left
 * the document or a shadow root. withhold(name, values) hands the engine
 * the values the answer of a call of tool name must not give the agent,
 * and rejects when the engine did not take them; cancelled(name) fires
 * toolcancel for a call the form's going cancelled.
 * vouched(form) says whether the page vouched for the form (veil.vouch):
 * only then do its risk attributes lower caution.
 * @param {{prepare: Function, submit: Function, veil: EventTarget, withhold: (name: string, values: string[]) => Promise<void>, cancelled: (name: string) => void, vouched: (form: Element) => boolean}} runtime
 */
export const start = (runtime) => {
  const handle = tools(runtime);
  install();
  return handle;
};
