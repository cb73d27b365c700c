// The README's example, run from an installed package (.ci/js.sh installs the packed
// tarball into a scratch project and runs this file there).
import { run } from "@ptc/engine";

const weather = {
  name: "Weather",
  description: "Gives the weather.",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  async execute({ city }) {
    return { city, temp: city === "Rome" ? 24 : 11 };
  },
};
const outcome = await run(
  '(mapcar (lambda (r) (plist-get r :temp)) (parallel (Weather :city "Oslo") (Weather :city "Rome")))',
  [weather],
  { limits: { parallelism: 4 }, signal: AbortSignal.timeout(10_000) },
);
console.log(outcome.outcome, outcome.text);
if (outcome.text !== "(11 24)") process.exit(1);
