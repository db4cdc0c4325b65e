/**
 * Service events: the upstream catalogue (catalogue.json, converted from upstream docs/events.yaml)
 * and the two pure functions around it — building an event from a catalogue entry, and showing an
 * event in the upstream `event` wire shape. No I/O: ids and time are passed in.
 */
import type { EventSeverity, ServiceEvent } from '../core/entities.js';
import catalogueData from './catalogue.json' with { type: 'json' };
import serviceCatalogueData from './service-catalogue.json' with { type: 'json' };
import { sortedKeys } from '../../../contracts/json-shapes.js';
import { isUuid } from '../../../contracts/input-checks.js';

/** How a catalogue property is typed; `optional-uuid` is upstream's UUID_PTR (e.g. a host's cluster). */
export type PropertyType = 'uuid' | 'optional-uuid' | 'string' | 'integer' | 'boolean';
/** `organisation`: the organisation's audit trail (category `audit`), about no cluster, host or infra-env. */
export type EventType = 'cluster' | 'host' | 'infra-env' | 'organisation';

export interface EventDefinition {
  name: string;
  /** Upstream template: `{property}` is replaced by the property's value. */
  message: string;
  eventType: EventType;
  severity: EventSeverity;
  properties: Readonly<Record<string, PropertyType>>;
}

/** What an event is about. Which ids an event carries is fixed by its catalogue entry. */
export interface EventSubject {
  orgId: string;
  clusterId?: string;
  hostId?: string;
  infraEnvId?: string;
}

export type EventPropertyValue = string | number | boolean;
export type EventProps = Readonly<Record<string, EventPropertyValue>>;

/** A caller asked for an event the catalogue does not allow; always a programming error, never the user's. */
export class InvalidEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidEventError';
  }
}

const SEVERITIES: readonly EventSeverity[] = ['info', 'warning', 'error', 'critical'];
const PROPERTY_TYPES: readonly PropertyType[] = ['uuid', 'optional-uuid', 'string', 'integer', 'boolean'];
const EVENT_TYPES: readonly EventType[] = ['cluster', 'host', 'infra-env', 'organisation'];

/** Catalogue properties that are the event's own ids; they come from the subject, not from props. */
const ID_PROPERTIES = { cluster_id: 'clusterId', host_id: 'hostId', infra_env_id: 'infraEnvId' } as const;
type IdProperty = keyof typeof ID_PROPERTIES;
const isIdProperty = (name: string): name is IdProperty => Object.hasOwn(ID_PROPERTIES, name);

/**
 * Event messages are shown to every user of the cluster and kept for months, so a property whose
 * name suggests a secret is refused outright rather than trusted to be harmless.
 */
const SECRET_NAME = /secret|passw|pwd|token|kubeadmin|credential|private_?key|api_?key|kubeconfig|bearer|auths?$/i;
export const looksLikeSecret = (propertyName: string): boolean => SECRET_NAME.test(propertyName);

/**
 * An entry as the data files hold it: JSON imports are typed structurally, with plain strings,
 * and each entry's properties typed with every other entry's names as absent.
 */
interface CatalogueEntry {
  name: string;
  message: string;
  eventType: string;
  severity: string;
  properties: Readonly<Record<string, string | undefined>>;
}

function checkedDefinition(entry: CatalogueEntry, seen: ReadonlyMap<string, EventDefinition>): EventDefinition {
  const problem = (reason: string) => new InvalidEventError(`Event catalogue entry ${entry.name} ${reason}`);
  if (seen.has(entry.name)) throw problem('is defined twice');
  const severity = SEVERITIES.find((known) => known === entry.severity);
  if (!severity) throw problem(`has unknown severity ${entry.severity}`);
  const eventType = EVENT_TYPES.find((known) => known === entry.eventType);
  if (!eventType) throw problem(`has unknown event type ${entry.eventType}`);
  const properties: Record<string, PropertyType> = {};
  for (const [name, type] of Object.entries(entry.properties)) {
    if (looksLikeSecret(name)) throw problem(`has property ${name}, which looks like a secret`);
    const propertyType = PROPERTY_TYPES.find((known) => known === type);
    if (!propertyType) throw problem(`has property ${name} of unknown type ${type}`);
    properties[name] = propertyType;
  }
  return Object.freeze({ name: entry.name, message: entry.message, eventType, severity, properties: Object.freeze(properties) });
}

function loadCatalogue(): ReadonlyMap<string, EventDefinition> {
  const byName = new Map<string, EventDefinition>();
  // Checked once at load so a bad edit of the data file fails every test, not one event at run time.
  const entries: readonly CatalogueEntry[] = [...catalogueData.events, ...serviceCatalogueData.events];
  for (const entry of entries) byName.set(entry.name, checkedDefinition(entry, byName));
  return byName;
}

export const EVENT_CATALOGUE: ReadonlyMap<string, EventDefinition> = loadCatalogue();

export function eventDefinition(name: string): EventDefinition {
  const definition = EVENT_CATALOGUE.get(name);
  if (!definition) throw new InvalidEventError(`Unknown event ${JSON.stringify(name)}: it is not in the event catalogue`);
  return definition;
}

const referencedProperties = (template: string): Set<string> => new Set([...template.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]!));

function checkType(event: string, name: string, type: PropertyType, value: unknown): EventPropertyValue {
  if (typeof value === 'string' && (type === 'string' || ((type === 'uuid' || type === 'optional-uuid') && isUuid(value)))) return value;
  if (typeof value === 'number' && type === 'integer' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'boolean' && type === 'boolean') return value;
  throw new InvalidEventError(`Event ${event}: property ${name} must be of type ${type}, got ${JSON.stringify(value)}`);
}

/**
 * Builds the event `name` about `subject`, rendering the catalogue's message with `props`.
 *
 * Every property the catalogue declares is required, except an `optional-uuid` the message does not
 * mention (upstream's UUID_PTR, e.g. the cluster of a host that is not bound yet). The ids are taken
 * from `subject`: giving an id the event does not carry, a property the catalogue does not declare,
 * or a secret-looking property throws. The severity is the catalogue's, or the `severity` property
 * for the one event that declares it. As upstream, the template's properties are not kept on the
 * event: only the rendered message is.
 */
export function buildEvent(name: string, props: EventProps, subject: EventSubject, at: Date, eventId: string): ServiceEvent {
  const definition = eventDefinition(name);
  if (!subject.orgId) throw new InvalidEventError(`Event ${name}: the subject has no organisation`);
  if (Number.isNaN(at.getTime())) throw new InvalidEventError(`Event ${name}: the event time is not a valid date`);

  for (const property of Object.keys(props)) {
    if (looksLikeSecret(property)) {
      throw new InvalidEventError(`Event ${name}: refusing property ${property}; it looks like a secret and events are shown to users`);
    }
    if (isIdProperty(property)) throw new InvalidEventError(`Event ${name}: pass ${property} as the subject's ${ID_PROPERTIES[property]}, not as a property`);
    if (!Object.hasOwn(definition.properties, property)) throw new InvalidEventError(`Event ${name} has no property ${property}`);
  }

  const referenced = referencedProperties(definition.message);
  const values = new Map<string, EventPropertyValue>();
  for (const [property, type] of Object.entries(definition.properties)) {
    const value: unknown = isIdProperty(property) ? subject[ID_PROPERTIES[property]] : props[property];
    if (value === undefined) {
      if (type === 'optional-uuid' && !referenced.has(property)) continue;
      throw new InvalidEventError(`Event ${name} needs property ${property}`);
    }
    values.set(property, checkType(name, property, type, value));
  }
  for (const [property, field] of Object.entries(ID_PROPERTIES)) {
    if (subject[field] !== undefined && !values.has(property)) {
      throw new InvalidEventError(`Event ${name} is a ${definition.eventType} event and does not carry ${property}`);
    }
  }

  // Upstream's generator lets an event that declares a `severity` property (host_status_updated)
  // take its severity from it; every other event has the catalogue's.
  let severity = definition.severity;
  if (values.has('severity')) {
    const declared = values.get('severity');
    const known = SEVERITIES.find((level) => level === declared);
    if (!known) throw new InvalidEventError(`Event ${name}: severity must be one of ${SEVERITIES.join(', ')}, got ${declared}`);
    severity = known;
  }

  // One pass over the template, as upstream's strings.Replacer: substituted text is not re-scanned.
  const message = definition.message.replace(/\{([^{}]+)\}/g, (placeholder, property: string) =>
    values.has(property) ? String(values.get(property)) : placeholder,
  );
  const id = (property: IdProperty) => values.get(property) as string | undefined;
  return {
    orgId: subject.orgId,
    eventId,
    name,
    severity,
    category: definition.eventType === 'organisation' ? 'audit' : 'user',
    message,
    eventTime: at.toISOString(),
    ...(id('cluster_id') ? { clusterId: id('cluster_id') } : {}),
    ...(id('host_id') ? { hostId: id('host_id') } : {}),
    ...(id('infra_env_id') ? { infraEnvId: id('infra_env_id') } : {}),
  };
}

/** The upstream `event` document. Absent ids and props are omitted, as upstream's `omitempty` does. */
export interface EventView {
  /** Absent for an event sent without one (POST /v2/events), as upstream's `omitempty`. */
  name?: string;
  cluster_id?: string;
  host_id?: string;
  infra_env_id?: string;
  severity: EventSeverity;
  category: ServiceEvent['category'];
  message: string;
  event_time: string;
  /** Upstream's list omits it too; ServiceEvent does not record the request yet. */
  request_id?: string;
  /** Additional properties as a JSON string. */
  props?: string;
}

export function eventView(event: ServiceEvent): EventView {
  // Catalogue events carry no props; events sent through POST /v2/events may (stored without
  // secret-looking names); this guards props that reach the store another way.
  const props = Object.entries(event.props ?? {}).filter(([name]) => !looksLikeSecret(name));
  return {
    ...(event.name !== '' ? { name: event.name } : {}),
    ...(event.clusterId ? { cluster_id: event.clusterId } : {}),
    ...(event.hostId ? { host_id: event.hostId } : {}),
    ...(event.infraEnvId ? { infra_env_id: event.infraEnvId } : {}),
    severity: event.severity,
    category: event.category,
    message: event.message,
    event_time: event.eventTime,
    ...(props.length > 0 ? { props: JSON.stringify(sortedKeys(Object.fromEntries(props))) } : {}),
  };
}
