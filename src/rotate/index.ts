// Model rotation after a usage limit: the limit classifier, the choice of the next model, and
// the monitor that remembers rotations. Other folders import from here.
export { lastAssistant, limitOf, type LimitVerdict } from "./limit.ts";
export {
	candidates,
	resumeNote,
	rotationBlocked,
	skipsText,
	type Candidate,
	type RotateSettings,
	type Skip,
} from "./plan.ts";
export {
	RESUME_MESSAGE,
	ROTATE_ENTRY,
	Rotation,
	type RotationIo,
	type RotationRecord,
	type RotationResult,
} from "./rotation.ts";
