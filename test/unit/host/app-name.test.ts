// The host's variables: `<APP>_<suffix>` by the host's own name (Pi's is "pi"), and nothing for a variable of
// another host that merely ends the same way.
import { describe, expect, it } from "vitest";
import { appName, envName, hostEnv } from "../../../src/host/index.ts";

describe("hostEnv", () => {
	it("reads the host's variable by its name, and only that one", () => {
		expect(appName()).toBe("pi");
		expect(envName("SUBAGENT_LINEAGE")).toBe("PI_SUBAGENT_LINEAGE");
		expect(hostEnv("SUBAGENT_LINEAGE", { PI_SUBAGENT_LINEAGE: '{"depth":1}' })).toBe('{"depth":1}');
		expect(hostEnv("SUBAGENT_LINEAGE", { PI_SUBAGENT_LINEAGE: "" })).toBe("");
		expect(hostEnv("SUBAGENT_LINEAGE", { SELESAI_SUBAGENT_LINEAGE: "x", HOME: "/home/u" })).toBeUndefined();
		expect(hostEnv("SUBAGENT_LINEAGE", {})).toBeUndefined();
	});
});
