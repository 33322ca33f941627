#!/usr/bin/env node
// The command-line entry. The package is TypeScript that Pi loads through jiti; Node does not
// strip types inside node_modules, so the CLI loads its sources through jiti as well.
import { createJiti } from "jiti";

const jiti = createJiti(import.meta.url);
const argv = process.argv.slice(2);
if (argv[0] === "fleet") {
	const { fleetMain } = await jiti.import("../src/fleet/cli.ts");
	process.exitCode = await fleetMain(argv.slice(1));
} else if (argv[0] === "doctor") {
	const { doctor, DOCTOR_USAGE } = await jiti.import("../src/doctor/index.ts");
	if (argv.length > 1) {
		process.stderr.write(`${DOCTOR_USAGE}\n`);
		process.exitCode = 2;
	} else
		process.exitCode = await doctor((s) => process.stdout.write(s), {
			cwd: process.cwd(),
			env: process.env,
			nodeVersion: process.versions.node,
		});
} else {
	const { main } = await jiti.import("../src/scan/cli.ts");
	process.exitCode = await main(argv);
}
