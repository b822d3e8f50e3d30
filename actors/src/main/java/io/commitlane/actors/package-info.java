/** actors: see the module README section. */
package io.commitlane.actors;
