// The simulator's profiles, one per authority: a profile is a folder here and a line below.
import type { SimulatorProfile } from '../core/profile.js';
import { kraOscu } from './kra-etims/oscu.js';
import { kraVscu } from './kra-etims/vscu.js';
import { zraVsdc } from './zra-vsdc/profile.js';

/** The profile a request or control call without a profile segment addresses (every URL before profiles). */
export const DEFAULT_PROFILE = zraVsdc;

export const PROFILES: readonly SimulatorProfile[] = [zraVsdc, kraOscu, kraVscu];
