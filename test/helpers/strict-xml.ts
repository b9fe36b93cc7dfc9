// A small strict XML parser for the JUnit report: elements, attributes,
// text, the five predefined entities and character references, one root.
// Anything else (a stray `<` or `&`, a tag closed out of order, an
// unquoted attribute, text after the root) throws, so a report that parses
// here is well-formed for what it uses.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*/;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string, where: number): string {
  if (/[<]/.test(text)) throw new Error(`'<' in text or attribute near ${where}`);
  return text.replace(/&([^;]*);|&/g, (whole, entity: string | undefined) => {
    if (entity === undefined) throw new Error(`bare '&' near ${where}`);
    if (entity in ENTITIES) return ENTITIES[entity]!;
    const code = /^#x([0-9a-fA-F]+)$/.exec(entity)?.[1] ?? /^#(\d+)$/.exec(entity)?.[1];
    if (code === undefined) throw new Error(`unknown entity ${whole} near ${where}`);
    return String.fromCodePoint(entity.startsWith('#x') ? Number.parseInt(code, 16) : Number(code));
  });
}

/** Parses `source`; returns the root element, or throws where it is not well-formed. */
export function parseXml(source: string): XmlElement {
  let at = 0;
  const declaration = /^<\?xml[^?]*\?>\s*/.exec(source);
  if (declaration !== null) at = declaration[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (at < source.length) {
    const lt = source.indexOf('<', at);
    const text = source.slice(at, lt < 0 ? source.length : lt);
    if (stack.length === 0) {
      if (text.trim() !== '') throw new Error(`text outside the root near ${at}`);
    } else stack.at(-1)!.text += decode(text, at);
    if (lt < 0) break;
    at = lt + 1;
    if (source.startsWith('/', at)) {
      const name = NAME.exec(source.slice(at + 1))?.[0];
      const open = stack.pop();
      if (name === undefined || open?.name !== name) throw new Error(`</${name}> closes <${open?.name}> near ${at}`);
      at += 1 + name.length;
      const end = /^\s*>/.exec(source.slice(at));
      if (end === null) throw new Error(`bad end tag near ${at}`);
      at += end[0].length;
      continue;
    }
    if (root !== undefined && stack.length === 0) throw new Error(`second root element near ${at}`);
    const name = NAME.exec(source.slice(at))?.[0];
    if (name === undefined) throw new Error(`bad tag near ${at}`);
    at += name.length;
    const element: XmlElement = { name, attributes: {}, children: [], text: '' };
    for (;;) {
      const attribute = /^\s+([A-Za-z_][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(source.slice(at));
      if (attribute === null) break;
      if (attribute[1]! in element.attributes) throw new Error(`attribute ${attribute[1]} twice near ${at}`);
      element.attributes[attribute[1]!] = decode(attribute[3] ?? attribute[4]!, at);
      at += attribute[0].length;
    }
    const close = /^\s*(\/?)>/.exec(source.slice(at));
    if (close === null) throw new Error(`bad tag <${name} near ${at}`);
    at += close[0].length;
    if (stack.length > 0) stack.at(-1)!.children.push(element);
    else root = element;
    if (close[1] !== '/') stack.push(element);
  }
  if (stack.length > 0) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
  if (root === undefined) throw new Error('no root element');
  return root;
}
