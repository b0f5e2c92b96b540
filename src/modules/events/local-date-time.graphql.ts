import { GraphQLScalarType, Kind } from 'graphql';
import { badInput } from '../../kit/graphql/errors.js';
import { isDateTime } from '../../platform/util/dates.js';

/**
 * `LocalDateTime`, the scalar integrations declare for an event's classroom and online times
 * (`$classroomStartDateTime: LocalDateTime!`, real-clients.md section 3): a date and a time of
 * day on a clock, without a zone or offset; the event's timeZoneName says which clock.
 */

/** A local date-time as text, checked (a real date, a real time): written back `T`-separated. */
function localDateTimeOf(value: unknown): string {
  if (typeof value === 'string' && isDateTime(value.trim())) return value.trim().replace(' ', 'T');
  const shown = JSON.stringify(value)?.slice(0, 50);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}[T ][\d:.]+(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value.trim())) {
    throw badInput(
      `LocalDateTime: ${shown} has an offset: write the time on the event's clock without one, e.g. "2025-03-03T09:00:00" (its timeZoneName says which clock)`,
    );
  }
  throw badInput(`LocalDateTime: ${shown} is not a local date-time: write it as "2025-03-03T09:00:00" (seconds optional, no offset)`);
}

export const LocalDateTime = new GraphQLScalarType<string, string>({
  name: 'LocalDateTime',
  description:
    'A date and time of day without a zone or offset: "2025-03-03T09:00:00" (seconds optional). The time zone is the event\'s timeZoneName.',
  serialize: (v) => String(v),
  parseValue: localDateTimeOf,
  parseLiteral(ast) {
    if (ast.kind === Kind.STRING) return localDateTimeOf(ast.value);
    throw badInput('LocalDateTime: write it as a string, e.g. "2025-03-03T09:00:00"');
  },
});
