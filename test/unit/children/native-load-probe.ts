// Child of the roles test: imports the modules named on the command line
// and prints every native library the process loaded meanwhile (JSON).
const loaded: string[] = [];
const dlopen = process.dlopen.bind(process);
process.dlopen = (module, filename, ...rest) => {
  loaded.push(filename);
  return dlopen(module, filename, ...rest);
};

for (const specifier of process.argv.slice(2)) await import(specifier);
process.stdout.write(JSON.stringify(loaded));
