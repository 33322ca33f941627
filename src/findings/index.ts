// Findings and where they go: the finding itself, the one sink that delivers them, rendering, and the history log.
// Other folders import from here; files inside the folder import each other directly.
export { ChildFindings, KEPT_CHILD_FINDINGS, type ChildBlockers, type ChildFindingRecord } from "./child-findings.ts";
export { FINDING_MESSAGE, NOTE_ENTRY, type NoteData } from "./delivery.ts";
export {
	CATEGORIES,
	IMPORTANCES,
	SEVERITIES,
	dedupe,
	firstLine,
	makeFinding,
	sourceLabel,
	sourceName,
	title,
	type Finding,
} from "./finding.ts";
export {
	type HistoryBase,
	HISTORY_KINDS,
	type HistoryEvent,
	type HistoryEventInput,
	type PermissionEvent,
} from "./history-event.ts";
export { sourceOf, type HistoryFilter } from "./history-filter.ts";
export { appendHistory, DEFAULT_MAX_BYTES, HistoryLog, historyDir } from "./history-log.ts";
export { readHistory } from "./history-read.ts";
export { isQuestion, QUESTION_MESSAGE, QUESTION_NOTE, type Question } from "./question.ts";
export { type ChildReport, FindingsSink, type ParentChannel, type ParentUser, type SinkEvent } from "./sink.ts";
