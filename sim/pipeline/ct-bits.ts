/**
 * ct_state tests as OVN's match language evaluates them: every `ct.X` has
 * the prerequisite `ct.trk`, so after OVN adds prerequisites `!ct.est` means
 * "tracked and not established", and an untracked packet satisfies neither
 * `ct.est` nor `!ct.est`.
 */
import { CS_TRK, MARK_BLOCKED } from '../conntrack/state.ts';
import type { PipelineCtx } from './context.ts';

/** `ct.X` (tracked and bit set). */
export const ctIs = (c: PipelineCtx, bit: number): boolean => (c.ctState & CS_TRK) !== 0 && (c.ctState & bit) !== 0;

/** `!ct.X` (tracked and bit clear). */
export const ctNot = (c: PipelineCtx, bit: number): boolean => (c.ctState & CS_TRK) !== 0 && (c.ctState & bit) === 0;

export const tracked = (c: PipelineCtx): boolean => (c.ctState & CS_TRK) !== 0;

/** `ct_mark.blocked == 1`. */
export const blocked = (c: PipelineCtx): boolean => (c.ctMark & MARK_BLOCKED) !== 0;
