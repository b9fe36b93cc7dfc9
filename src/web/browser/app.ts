// The page's script (placeholder until the page's client lands).
export {};
