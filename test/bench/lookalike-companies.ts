/**
 * The companies of `npm run bench:lookalikes`, generated with a fixed seed (see test/bench/lookalikes.ts)
 * and kept in columns: a million companies as objects took 570 MB of heap in each worker, as columns
 * they take 30 MB, and a worker makes the objects of one section at a time, as a worker on AWS reads one
 * section at a time from the table.
 */
import type { Country } from '../../lib/companies/identifiers';
import { sectionOfBlock, type LookalikeFeatures } from '../../lib/lookalikes/features';
import { mulberry32 } from '../fixtures/demo-data/random';

/** The chance that a drawn company founds a family of 2 to 5 (about 10 % of the companies are in one). */
const FAMILY_CHANCE = 0.03;
const COUNTRIES: Country[] = ['BE', 'NL', 'FR'];
const PLACES = 200;

export class GeneratedCompanies {
  readonly length: number;
  /** Family number of each company, -1 for noise. */
  readonly family: Int32Array;
  private readonly country: Uint8Array;
  private readonly serial: Int32Array;
  private readonly place: Uint8Array;
  /** The 5-digit NACE code as a number (every generated division is 10 or more). */
  private readonly activity: Int32Array;
  private readonly employees: Float64Array;
  private readonly totalAssets: Float64Array;
  private readonly foundedYear: Int16Array;
  private readonly health: Int8Array;
  private readonly placeNames = COUNTRIES.map((c) =>
    Array.from({ length: PLACES }, (_, p) => `${c}-place-${p}`),
  );
  private readonly codes = new Map<number, string>();

  constructor(count: number, seed = 7) {
    this.length = count;
    this.family = new Int32Array(count).fill(-1);
    this.country = new Uint8Array(count);
    this.serial = new Int32Array(count);
    this.place = new Uint8Array(count);
    this.activity = new Int32Array(count);
    this.employees = new Float64Array(count);
    this.totalAssets = new Float64Array(count);
    this.foundedYear = new Int16Array(count);
    this.health = new Int8Array(count);
    const random = mulberry32(seed);
    const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
    // 40 divisions, the biggest about 14 % of the companies (like wholesale in the demo data).
    const divisions = Array.from({ length: 40 }, (_, i) => 10 + i * 2);
    const weights = divisions.map((_, i) => 1 / (i + 1));
    const totalWeight = weights.reduce((a, b) => a + b, 0);
    const pickDivision = () => {
      let r = random() * totalWeight;
      for (let i = 0; i < divisions.length; i++) if ((r -= weights[i]!) <= 0) return divisions[i]!;
      return divisions[0]!;
    };
    const serials = [0, 0, 0];
    let families = 0;
    let n = 0;
    while (n < count) {
      // The noise company (the family's base): the draws in this order keep the data of earlier runs.
      const country = int(0, 2);
      const employees = Math.floor(10 ** (random() * 3.7)) - 1;
      const place = int(0, PLACES - 1);
      const activity = pickDivision() * 1000 + int(1, 9) * 100 + int(0, 9) * 10 + int(0, 1);
      const totalAssets = Math.round((employees + 1) * 60_000 * 10 ** (random() * 1.6 - 0.8));
      const foundedYear = int(1950, 2024);
      const health = int(0, 10);
      const members = random() < FAMILY_CHANCE ? int(2, 5) : 1;
      const id = members > 1 ? families++ : -1;
      for (let m = 0; m < members && n < count; m++, n++) {
        const jitter = () => 0.85 + random() * 0.3;
        this.family[n] = id;
        this.country[n] = country;
        this.serial[n] = ++serials[country]!;
        this.place[n] = place;
        this.activity[n] = activity;
        if (members > 1) {
          this.employees[n] = Math.round(employees * jitter());
          this.totalAssets[n] = Math.round(totalAssets * jitter());
          this.foundedYear[n] = int(1950, 2024);
          this.health[n] = int(0, 10);
        } else {
          this.employees[n] = employees;
          this.totalAssets[n] = totalAssets;
          this.foundedYear[n] = foundedYear;
          this.health[n] = health;
        }
      }
    }
  }

  /** Company i as features (a new object each time). */
  at(i: number): LookalikeFeatures {
    const country = COUNTRIES[this.country[i]!]!;
    const serial = this.serial[i]!;
    return {
      country,
      // Unique, well-formed enough for the tie order (numbers are not validated here).
      companyNumber:
        country === 'BE'
          ? `0${String(serial).padStart(9, '0')}`
          : country === 'NL'
            ? String(10_000_000 + serial)
            : String(100_000_000 + serial),
      name: `Company ${i}`,
      place: this.placeNames[this.country[i]!]![this.place[i]!]!,
      activity: this.code(this.activity[i]!),
      employees: this.employees[i]!,
      totalAssets: this.totalAssets[i]!,
      foundedYear: this.foundedYear[i]!,
      healthIndicator: this.health[i]!,
    };
  }

  /** Every company as features (small sizes only: a million take 570 MB). */
  all(): LookalikeFeatures[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }

  /** The NACE section of company i's activity (lib/lookalikes/features.ts). */
  sectionOf(i: number): string {
    return sectionOfBlock(String(Math.floor(this.activity[i]! / 1000)));
  }

  private code(activity: number): string {
    let code = this.codes.get(activity);
    if (code === undefined) this.codes.set(activity, (code = String(activity)));
    return code;
  }
}
