// The values of setting `http.server` (src/http/front-choice.ts chooses by them).
export const HTTP_SERVER_CHOICES = ['auto', 'uws', 'node'] as const;
export type HttpServerChoice = (typeof HTTP_SERVER_CHOICES)[number];
