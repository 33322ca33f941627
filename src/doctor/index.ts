// `pi-watchdog doctor`: an installation checked from the shell (Node, Pi, the package loading,
// settings, the reviewer model, git, the language server, the history log).
// Other folders import from here; files inside the folder import each other directly.
export { doctor, DOCTOR_USAGE } from "./doctor.ts";
