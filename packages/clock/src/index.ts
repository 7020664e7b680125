export type { Clock, Ticker, Timer } from "./clock.js";
export { sleepOn } from "./clock.js";
export { FakeClock, type FakeClockOptions, settle } from "./fake-clock.js";
export { jitter, mathRand, type Rand, seededRand } from "./rand.js";
export { RealClock, realClock } from "./real-clock.js";
export { clockScheduler } from "./rxjs-scheduler.js";
