// Cadence reviews: counting tool results and starting a background review every N.
// Other folders import from here; files inside the folder import each other directly.
export { Cadence } from "./cadence.ts";
