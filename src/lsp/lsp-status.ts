// The LSP part of `/subagents-watchdog status`. Pure.
import type { StatusSection } from "../util/index.ts";
import type { LspStatus } from "./lsp-manager.ts";

export function lspSection(enabled: boolean, status: LspStatus | undefined): StatusSection {
	if (!enabled) return { title: "LSP", lines: ["disabled (lsp.enabled: false)"] };
	if (!status) return { title: "LSP", lines: ["not started this session"] };
	const lines = [
		`state: ${status.state}` +
			(status.pid
				? ` (pid ${status.pid}${status.rssKb ? `, ${Math.round(status.rssKb / 1024)} MiB resident` : ""})`
				: ""),
	];
	if (status.server)
		lines.push(
			`server: ${status.server.path} (version ${status.server.version}, ${status.server.from}: ${status.server.why})`,
		);
	if (status.typescript)
		lines.push(
			`TypeScript: ${status.typescript.version ? `${status.typescript.version}, ` : ""}${status.typescript.from}: ` +
				`${status.typescript.why}`,
		);
	if (status.lastResult)
		lines.push(
			`last check: ${status.lastResult}${status.lastDurationMs !== undefined ? `, ${status.lastDurationMs} ms` : ""}`,
		);
	lines.push(
		`files checked: ${status.filesChecked}; information: ${status.infos}, hints: ` +
			`${status.hints}${status.requests !== undefined ? `; ${status.requests} request(s) to this server` : ""}`,
	);
	return { title: "LSP", lines };
}

/** One line for the short status. */
export function lspBrief(enabled: boolean, status: LspStatus | undefined): string {
	if (!enabled) return "LSP: off (lsp.enabled: false)";
	if (!status || status.state === "not started") return "LSP: not started this session";
	const server = status.server ? `, ${status.server.from} server ${status.server.version}` : "";
	return `LSP: ${status.state}${server}${status.lastResult ? `; last check: ${status.lastResult}` : ""}`;
}
