import patternDescriptions from './pattern-descriptions.json' with { type: 'json' };

const PATTERN_DESCRIPTIONS = new Map(Object.entries(patternDescriptions.patterns));

/** What a request validation error says, in words a person can act on (never a regular expression). */
export function describeValidationError(error: {
  instancePath?: string;
  schemaPath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}): string {
  // The body's fields by their names, as the user sent them; query and path parameters keep their prefix.
  const where = (error.instancePath || error.schemaPath).replace(/^\//, '').replace(/^requestBody\//, '');
  if (error.keyword === 'pattern') {
    const wanted = PATTERN_DESCRIPTIONS.get(String(error.params.pattern));
    return `${where}: must be ${wanted ?? 'in the format the API documents for it (see openapi.yaml)'}`;
  }
  if (error.keyword === 'additionalProperties') {
    // The field's name as sent, cut short: an answer never echoes much of a request back.
    const name = String(error.params.additionalProperty);
    const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
    return `${where === 'requestBody' ? '' : `${where}: `}unknown field ${JSON.stringify(shown)}`;
  }
  if (error.keyword === 'enum' && Array.isArray(error.params.allowedValues)) {
    return `${where}: must be one of ${error.params.allowedValues.map(String).join(', ')}`;
  }
  return `${where}: ${error.message ?? 'is invalid'}`;
}
