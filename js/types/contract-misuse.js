// Misuses of the engine's contract that the runtime's type check
// (tsconfig.runtime.json) must catch: each line under @ts-expect-error
// fails the check once it is no longer an error.

import { call } from '../webmcp/engine.js';
import { OP_DECIDE, OP_OUTPUT, OP_SETTLE } from '../webmcp/contract.js';

// A header member the request lacks: decide reads name only.
// @ts-expect-error
call(OP_DECIDE, { name: 'lookup', tool: 'lookup' }, '{}');

// A header member of the wrong type.
// @ts-expect-error
call(OP_SETTLE, { call: 'c1', approved: 'yes' });

// No header, for an op that reads one.
// @ts-expect-error
call(OP_SETTLE);

// A header without a member the request needs.
// @ts-expect-error
call(OP_OUTPUT, { kind: 'returned' }, '{}');

export const misread = async () => {
  const [h] = await call(OP_OUTPUT, { call: 'c1', kind: 'returned' }, '{}');
  // A reply member the engine does not write.
  // @ts-expect-error
  return h.withheld;
};
