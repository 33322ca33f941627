// One titled part of `/subagents-watchdog status`: each capability reports its own.
export interface StatusSection {
	title: string;
	lines: string[];
}
